/** Kubernetes label selectors, evaluated against a namespace's labels. */
import { arrayOr, objectOr } from './grammar.js';

/** The result of reading a selector: a predicate, or why the selector is invalid. */
export type ParsedSelector =
  | { ok: true; matches: (labels: Readonly<Record<string, string>>) => boolean }
  | { ok: false; message: string };

/**
 * Reads a label selector: `matchLabels` and `matchExpressions` (In, NotIn, Exists, DoesNotExist),
 * all ANDed; an empty selector matches everything, as in Kubernetes. An unknown operator or a
 * malformed entry makes the selector invalid (it then matches nothing, so nothing is widened).
 */
export function parseLabelSelector(raw: unknown): ParsedSelector {
  if (typeof raw !== 'object' || raw === null) return { ok: false, message: 'selector must be an object' };
  const selector = raw as { matchLabels?: unknown; matchExpressions?: unknown };
  const required: [string, string][] = [];
  for (const [key, value] of Object.entries(objectOr<Record<string, unknown>>(selector.matchLabels))) {
    if (typeof value !== 'string') return { ok: false, message: `matchLabels["${key}"] must be a string` };
    required.push([key, value]);
  }
  const tests: ((labels: Readonly<Record<string, string>>) => boolean)[] = [];
  for (const [index, rawExpression] of arrayOr(selector.matchExpressions).entries()) {
    const expression = objectOr<{ key: unknown; operator: unknown; values: unknown }>(rawExpression);
    const { key, operator } = expression;
    const values = arrayOr(expression.values);
    if (typeof key !== 'string' || key === '') {
      return { ok: false, message: `matchExpressions[${index}].key must be a non-empty string` };
    }
    if (!values.every((value) => typeof value === 'string')) {
      return { ok: false, message: `matchExpressions[${index}].values must be strings` };
    }
    const wanted = values as string[];
    const has = (labels: Readonly<Record<string, string>>) => Object.hasOwn(labels, key);
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (wanted.length === 0) {
          return {
            ok: false,
            message: `matchExpressions[${index}].values must not be empty for ${operator}`,
          };
        }
        tests.push(
          operator === 'In'
            ? (labels) => has(labels) && wanted.includes(labels[key]!)
            : (labels) => !has(labels) || !wanted.includes(labels[key]!),
        );
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (wanted.length !== 0) {
          return { ok: false, message: `matchExpressions[${index}].values must be empty for ${operator}` };
        }
        tests.push(operator === 'Exists' ? has : (labels) => !has(labels));
        break;
      default:
        return {
          ok: false,
          message: `matchExpressions[${index}].operator must be In, NotIn, Exists or DoesNotExist`,
        };
    }
  }
  return {
    ok: true,
    matches: (labels) =>
      required.every(([key, value]) => Object.hasOwn(labels, key) && labels[key] === value) &&
      tests.every((test) => test(labels)),
  };
}
