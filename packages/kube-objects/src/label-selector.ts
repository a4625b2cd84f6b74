/**
 * Label selectors in their string form (`--watch-namespace-selector`, `?labelSelector=`), parsed
 * and matched as kube-apiserver parses and matches them, with the label key and value grammars.
 */
import { SelectorSyntaxError } from './errors.js';

const subdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNamePattern = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** kube-apiserver's sentence for a name that is not a lowercase RFC 1123 subdomain. */
export const SUBDOMAIN_GRAMMAR_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const qualifiedNameMessage =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** What is wrong with a label or annotation key (`[prefix/]name`), in kube-apiserver's words; empty when valid. */
export function describeLabelKeyProblems(key: string): string[] {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const problems: string[] = [];
  if (
    prefix !== undefined &&
    (prefix.length === 0 || prefix.length > 253 || !subdomainPattern.test(prefix))
  ) {
    problems.push(`prefix part ${SUBDOMAIN_GRAMMAR_MESSAGE}`);
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  else if (!qualifiedNamePattern.test(name)) problems.push(qualifiedNameMessage);
  return problems;
}

/** What is wrong with a label value (at most 63 characters of a restricted alphabet, or empty); empty when valid. */
export function describeLabelValueProblems(value: string): string[] {
  if (value.length > 63) return ['must be no more than 63 characters'];
  return labelValuePattern.test(value) ? [] : [labelValueMessage];
}

/** One requirement of a parsed label selector. */
export type LabelRequirement =
  | { key: string; operator: 'equals' | 'notEquals'; value: string }
  | { key: string; operator: 'in' | 'notIn'; values: string[] }
  | { key: string; operator: 'exists' | 'doesNotExist' }
  | { key: string; operator: 'greaterThan' | 'lessThan'; value: number };

const setTerm = /^([^\s=!<>(),]+)\s+(in|notin)\s*\((.*)\)$/;
const comparisonTerm = /^([^\s=!<>(),]+)\s*(==|=|!=|>|<)\s*([^\s=!<>(),]*)$/;
const keyOnly = /^(!?)\s*([^\s=!<>(),]+)$/;

/**
 * Parses a label selector (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`, `k>1`,
 * `k<1`; comma = AND). Throws `SelectorSyntaxError` naming the offending text.
 */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  for (const part of splitOutsideParentheses(selector)) {
    const term = part.trim();
    if (term === '') {
      if (selector.trim() === '') continue;
      throw new SelectorSyntaxError(`unable to parse requirement: empty term in ${JSON.stringify(selector)}`);
    }
    requirements.push(parseTerm(term));
  }
  return requirements;
}

function parseTerm(term: string): LabelRequirement {
  const set = setTerm.exec(term);
  if (set) {
    const [, key = '', operator, list = ''] = set;
    const values = list.split(',').map((value) => value.trim());
    if (values.length === 1 && values[0] === '') {
      throw new SelectorSyntaxError(
        `unable to parse requirement: ${JSON.stringify(term)}: for 'in', 'notin' operators, values set can't be empty`,
      );
    }
    checkKey(key, term);
    for (const value of values) checkValue(value, term);
    return { key, operator: operator === 'in' ? 'in' : 'notIn', values };
  }
  const comparison = comparisonTerm.exec(term);
  if (comparison) {
    const [, key = '', operator = '', value = ''] = comparison;
    checkKey(key, term);
    if (operator === '>' || operator === '<') {
      if (!/^-?\d+$/.test(value)) {
        throw new SelectorSyntaxError(
          `unable to parse requirement: ${JSON.stringify(term)}: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      }
      return { key, operator: operator === '>' ? 'greaterThan' : 'lessThan', value: Number(value) };
    }
    checkValue(value, term);
    return { key, operator: operator === '!=' ? 'notEquals' : 'equals', value };
  }
  const existence = keyOnly.exec(term);
  if (existence) {
    const [, bang, key = ''] = existence;
    checkKey(key, term);
    return { key, operator: bang === '!' ? 'doesNotExist' : 'exists' };
  }
  throw new SelectorSyntaxError(`unable to parse requirement: ${JSON.stringify(term)}`);
}

function checkKey(key: string, term: string): void {
  const [problem] = describeLabelKeyProblems(key);
  if (problem !== undefined) {
    throw new SelectorSyntaxError(
      `unable to parse requirement: ${JSON.stringify(term)}: invalid label key ${JSON.stringify(key)}: ${problem}`,
    );
  }
}

function checkValue(value: string, term: string): void {
  const [problem] = describeLabelValueProblems(value);
  if (problem !== undefined) {
    throw new SelectorSyntaxError(
      `unable to parse requirement: ${JSON.stringify(term)}: invalid label value ${JSON.stringify(value)}: ${problem}`,
    );
  }
}

/** True when `labels` satisfy every requirement (an empty selector matches everything). */
export function matchesLabels(
  requirements: readonly LabelRequirement[],
  labels: Record<string, string> | undefined = {},
): boolean {
  for (const requirement of requirements) {
    const value = labels?.[requirement.key];
    if (!matchesRequirement(requirement, value)) return false;
  }
  return true;
}

function matchesRequirement(requirement: LabelRequirement, value: string | undefined): boolean {
  switch (requirement.operator) {
    case 'equals':
      return value === requirement.value;
    case 'notEquals':
      return value !== requirement.value;
    case 'in':
      return value !== undefined && requirement.values.includes(value);
    case 'notIn':
      return value === undefined || !requirement.values.includes(value);
    case 'exists':
      return value !== undefined;
    case 'doesNotExist':
      return value === undefined;
    case 'greaterThan':
      return value !== undefined && /^-?\d+$/.test(value) && Number(value) > requirement.value;
    case 'lessThan':
      return value !== undefined && /^-?\d+$/.test(value) && Number(value) < requirement.value;
  }
}

function splitOutsideParentheses(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const char = selector[i];
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts;
}
