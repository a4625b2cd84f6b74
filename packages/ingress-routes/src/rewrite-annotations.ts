/**
 * ingress-nginx's rewrite-target: the path sent upstream, possibly with capture references of a
 * use-regex path, which only work together with use-regex.
 */
import { MAX_PATH_LENGTH } from './grammar.js';
import { annotationField } from './annotation-field.js';
import {
  type AnnotationParser,
  type AnnotationProblem,
  type IngressAnnotations,
} from './annotation-types.js';

const REWRITE_TARGET = /^\/(?:[A-Za-z0-9._~\-/]|\$[1-9])*$/;

/** The parser of rewrite-target; checkRewriteTarget checks it against use-regex once all are read. */
export const REWRITE_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'rewrite-target': (value, into) => {
    if (value.length > MAX_PATH_LENGTH || !REWRITE_TARGET.test(value)) {
      return 'must start with "/" and hold only A-Z a-z 0-9 . _ ~ - / and capture references $1-$9';
    }
    into.rewriteTarget = value;
    return undefined;
  },
};

/**
 * Adds an error to `problems` when rewrite-target uses capture references without use-regex
 * "true": without a regular expression there is nothing to capture.
 */
export function checkRewriteTarget(
  into: IngressAnnotations,
  withPrefix: string,
  problems: AnnotationProblem[],
): void {
  if (into.rewriteTarget?.includes('$') && !into.useRegex) {
    problems.push({
      field: annotationField(`${withPrefix}rewrite-target`),
      message: 'annotation "rewrite-target" uses capture references, which need use-regex "true"',
      code: 'invalid-annotation',
      severity: 'error',
      value: into.rewriteTarget,
    });
  }
}
