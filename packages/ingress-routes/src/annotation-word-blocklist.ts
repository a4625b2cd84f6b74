/**
 * annotation-value-word-blocklist: words an annotation value may not contain. An Ingress with one
 * in the value of an annotation of the prefix is left out whole, as ingress-nginx's store skips it.
 */
import { annotationField } from './annotation-field.js';

/**
 * The words of annotation-value-word-blocklist: separated by commas, spaces around each trimmed,
 * empty ones dropped (ingress-nginx's store keeps an empty word, which every value contains, so a
 * trailing comma there leaves out every Ingress with an annotation; its webhook trims as here).
 */
export function readAnnotationWordBlocklist(value: string): string[] {
  const words = value
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  return [...new Set(words)];
}

/** An annotation whose value holds a blocked word. */
export interface BlockedAnnotation {
  /** The annotation's key, prefix included. */
  key: string;
  /** The first word of the list its value contains. */
  word: string;
}

/**
 * The annotations (keys with `prefix/`) whose string value contains one of `words` (compared as
 * written, with case), each with the first word it contains; sorted by key.
 */
export function findBlockedAnnotations(
  annotations: Readonly<Record<string, unknown>>,
  prefix: string,
  words: readonly string[],
): BlockedAnnotation[] {
  if (words.length === 0) return [];
  const blocked: BlockedAnnotation[] = [];
  for (const key of Object.keys(annotations).sort()) {
    const value = annotations[key];
    if (!key.startsWith(`${prefix}/`) || typeof value !== 'string') continue;
    const word = words.find((candidate) => value.includes(candidate));
    if (word !== undefined) blocked.push({ key, word });
  }
  return blocked;
}

/** The problem of a blocked annotation, as translateIngress reports it. */
export function describeBlockedAnnotation(annotation: BlockedAnnotation): { field: string; message: string } {
  return {
    field: annotationField(annotation.key),
    message: `annotation "${annotation.key}" holds ${JSON.stringify(annotation.word)}, a word of the controller ConfigMap's annotation-value-word-blocklist; the Ingress is not served`,
  };
}
