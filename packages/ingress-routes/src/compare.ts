/** Compares strings by UTF-16 code units, independent of locale, for deterministic ordering. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
