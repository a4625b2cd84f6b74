/**
 * Problems of one source object, as translators report them: each names the field at fault and,
 * when there is one, the offending value as data (shortened, never interpreted).
 */
import type { Problem, SourceRef } from './types.js';

/** Longest value a problem shows; longer ones are cut, as a problem is read by people. */
const MAX_SHOWN_VALUE = 256;

/** A value as a problem shows it: strings as they are, anything else as JSON, cut to 256 characters. */
export function describeValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? typeof value);
  } catch {
    // A cycle or a BigInt: say what it is rather than fail the translation.
    text = typeof value;
  }
  return text.length > MAX_SHOWN_VALUE ? `${text.slice(0, MAX_SHOWN_VALUE)}…` : text;
}

/**
 * Collects the problems of one object, in the order they are found. Every problem names its kind
 * as a `code` (kebab-case, from the translator's list of codes, `Code`): stable for programs that
 * act on it, while the message is for people and may be reworded.
 */
export interface ProblemLog<Code extends string = string> {
  readonly object: SourceRef;
  readonly problems: Problem[];
  /** That part (the object, a rule, a path, a listener) is left out or answers with an error. */
  error(code: Code, field: string, message: string, value?: unknown): void;
  /** It is served, but not exactly as written. */
  warning(code: Code, field: string, message: string, value?: unknown): void;
}

/** Creates an empty log for the problems of `object`, whose codes are of `Code`. */
export function createProblemLog<Code extends string = string>(object: SourceRef): ProblemLog<Code> {
  const problems: Problem[] = [];
  const add = (severity: Problem['severity'], code: Code, field: string, message: string, value: unknown) => {
    const problem: Problem = { object: { ...object }, field, message, severity };
    const shown = describeValue(value);
    if (shown !== undefined) problem.value = shown;
    problem.code = code;
    problems.push(problem);
  };
  return {
    object,
    problems,
    error: (code, field, message, value) => add('error', code, field, message, value),
    warning: (code, field, message, value) => add('warning', code, field, message, value),
  };
}

/** How a problem reads as one line: `HTTPRoute default/web spec.rules[1].matches[0]: message`. */
export function formatProblem(problem: Problem): string {
  const { kind, namespace, name } = problem.object;
  return `${kind} ${namespace}/${name} ${problem.field}: ${problem.message}`;
}
