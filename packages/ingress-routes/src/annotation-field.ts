/** Where a problem of an annotation points: the field path every problem of the package uses. */

/** `metadata.annotations["<key>"]`, the key quoted as JSON (it holds `/` and `.`). */
export function annotationField(key: string): string {
  return `metadata.annotations[${JSON.stringify(key)}]`;
}
