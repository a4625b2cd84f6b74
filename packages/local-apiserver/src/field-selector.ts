/** Field selectors, parsed and matched with kube-apiserver's grammar and error messages. */
import { SelectorSyntaxError } from './errors.js';
import { describeValue, readPath } from './objects.js';

/** One requirement of a parsed field selector; `path` is where the field lives in the object. */
export interface FieldRequirement {
  field: string;
  path: readonly string[];
  operator: 'equals' | 'notEquals';
  value: string;
}

/** The fields every resource can be selected by. */
export const commonSelectableFields: Readonly<Record<string, readonly string[]>> = {
  'metadata.name': ['metadata', 'name'],
  'metadata.namespace': ['metadata', 'namespace'],
};

/**
 * Parses a field selector (`f=v`, `f==v`, `f!=v`; comma = AND; `\,` `\=` `\\` escape) against the
 * fields a resource supports. Throws `SelectorSyntaxError` for bad syntax or an unsupported field
 * (`field label not supported: <f>`, the message kube-apiserver answers with 400).
 */
export function parseFieldSelector(
  selector: string,
  selectable: Readonly<Record<string, readonly string[]>> = commonSelectableFields,
): FieldRequirement[] {
  const requirements: FieldRequirement[] = [];
  for (const term of splitUnescaped(selector, ',')) {
    if (term.trim() === '') continue;
    const match = /^(.*?)(==|!=|=)(.*)$/s.exec(findOperator(term));
    if (!match) throw new SelectorSyntaxError(`invalid selector: '${selector}'; can't understand '${term}'`);
    const operatorIndex = match[1]!.length;
    const field = term.slice(0, operatorIndex).trim();
    const operator = match[2]!;
    const value = unescape(term.slice(operatorIndex + operator.length));
    const path = selectable[field];
    if (path === undefined) throw new SelectorSyntaxError(`field label not supported: ${field}`);
    requirements.push({ field, path, operator: operator === '!=' ? 'notEquals' : 'equals', value });
  }
  return requirements;
}

/** True when `object` satisfies every requirement; a missing field reads as the empty string. */
export function matchesFields(requirements: readonly FieldRequirement[], object: unknown): boolean {
  for (const requirement of requirements) {
    const raw = readPath(object, requirement.path);
    const value = raw === undefined || raw === null ? '' : describeValue(raw);
    if ((value === requirement.value) !== (requirement.operator === 'equals')) return false;
  }
  return true;
}

// Masks escaped characters so the operator search only sees real ones; indexes stay aligned.
function findOperator(term: string): string {
  return term.replace(/\\./g, '__');
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i += 1;
    else if (text[i] === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}
