/**
 * Regular expressions every data plane reads alike. A route's RegularExpression travels as data to
 * engines that differ (nginx's PCRE, Node's RegExp, RE2 in Envoy-based planes); translators accept
 * only the subset on which they agree, so a pattern means the same wherever it runs.
 */

/** Escapes of classes and punctuation: never back-references, control characters or `\Q`. */
const PORTABLE_ESCAPES = '.-/dDwWsS()[]{}*+?|^$';

/**
 * Checks that `value` is in the portable subset: escapes only of `PORTABLE_ESCAPES` (plus
 * `extraEscapes`), no `(?` group other than `(?:` (no look-arounds, named groups, inline flags or
 * verbs), and it compiles as a JavaScript regular expression. Returns a reason for a problem
 * message, or undefined. Length and character-set limits are the caller's.
 */
export function checkPortableRegex(value: string, extraEscapes = ''): string | undefined {
  const escapes = PORTABLE_ESCAPES + extraEscapes;
  let unescaped = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch !== '\\') {
      unescaped += ch;
      continue;
    }
    const next = value[i + 1];
    if (next === undefined || !escapes.includes(next)) {
      return `may only escape one of ${[...escapes].join(' ')}`;
    }
    i++;
    unescaped += 'x';
  }
  if (/\(\?(?!:)/.test(unescaped)) return 'may not use "(?" groups other than "(?:"';
  try {
    new RegExp(value);
  } catch {
    return 'is not a valid regular expression';
  }
  return undefined;
}
