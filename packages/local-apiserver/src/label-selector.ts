/** One requirement of a parsed label selector. */
export type LabelRequirement =
  | { key: string; operator: 'equals' | 'notEquals'; value: string }
  | { key: string; operator: 'in' | 'notIn'; values: string[] }
  | { key: string; operator: 'exists' | 'doesNotExist' };

/** Parses a label selector (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`, comma = AND). */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  for (const part of splitOutsideParentheses(selector)) {
    const term = part.trim();
    if (term === '') continue;
    const setMatch = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (setMatch) {
      const [, key = '', op, list = ''] = setMatch;
      const values = list
        .split(',')
        .map((value) => value.trim())
        .filter((value) => value !== '');
      requirements.push({ key, operator: op === 'in' ? 'in' : 'notIn', values });
      continue;
    }
    const equalityMatch = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (equalityMatch) {
      const [, key = '', op, value = ''] = equalityMatch;
      requirements.push({ key, operator: op === '!=' ? 'notEquals' : 'equals', value });
      continue;
    }
    if (/^![^=!\s(),]+$/.test(term)) {
      requirements.push({ key: term.slice(1), operator: 'doesNotExist' });
      continue;
    }
    if (/^[^=!\s(),]+$/.test(term)) {
      requirements.push({ key: term, operator: 'exists' });
      continue;
    }
    throw new SyntaxError(`unable to parse label selector requirement: ${JSON.stringify(term)}`);
  }
  return requirements;
}

/** True when `labels` satisfy every requirement. */
export function matchesLabels(
  requirements: readonly LabelRequirement[],
  labels: Record<string, string> = {},
): boolean {
  return requirements.every((requirement) => {
    const value = labels[requirement.key];
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
    }
  });
}

function splitOutsideParentheses(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}
