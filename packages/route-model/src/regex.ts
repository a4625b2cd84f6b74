/**
 * Regular expressions every data plane reads alike. A route's RegularExpression travels as data to
 * engines that differ (nginx's PCRE, Node's RegExp, RE2 in Envoy-based planes); translators accept
 * only the subset on which they agree, so a pattern means the same wherever it runs. The places
 * where they part ways were found by feeding random patterns to JavaScript and to nginx side by
 * side (apps/controller/test/validation-fuzz.integration.test.ts): an empty class `[]` or `[^]`
 * (JavaScript) is a class holding `]` to PCRE; `[:alpha:]` is a POSIX class to PCRE only; a
 * range ending at `\d` is an error to PCRE; PCRE refuses repeat counts above 65535; `{,2}` is a
 * literal to some engines and a quantifier to others.
 */

/** Escapes of classes and punctuation: never back-references, control characters or `\Q`. */
const PORTABLE_ESCAPES = '.-/dDwWsS()[]{}*+?|^$';

/** Escapes that stand for a set of characters, which cannot end a range. */
const CLASS_ESCAPES = 'dDwWsS';

/** Largest repeat count PCRE accepts in `{n,m}`. */
const MAX_REPEAT = 65_535;

/** A quantifier in braces: `{n}`, `{n,}` or `{n,m}`. */
const BRACE_QUANTIFIER = /^\{(\d+)(?:,(\d*))?\}/;

type Scan = { end: number } | { reason: string };

function escapeReason(escapes: string): string {
  return `may only escape one of ${[...escapes].join(' ')}`;
}

/** One item of a character class at `i`: an escape or a single character. */
interface ClassItem {
  kind: 'char' | 'set';
  next: number;
}

function readClassItem(value: string, i: number, escapes: string): ClassItem | { reason: string } {
  if (value[i] !== '\\') return { kind: 'char', next: i + 1 };
  const escaped = value[i + 1];
  if (escaped === undefined || !escapes.includes(escaped)) return { reason: escapeReason(escapes) };
  return { kind: CLASS_ESCAPES.includes(escaped) ? 'set' : 'char', next: i + 2 };
}

/** Reads the character class that opens at `start` (a `[`); returns the index of its `]`. */
function scanClass(value: string, start: number, escapes: string): Scan {
  let i = start + 1;
  if (value[i] === '^') i++;
  if (value[i] === ']') {
    return {
      reason:
        'may not start a character class with "]" ("[]" and "[^]" differ between engines; escape it as "\\]")',
    };
  }
  let previous: 'none' | 'char' | 'set' | 'range' = 'none';
  while (i < value.length) {
    const ch = value[i]!;
    if (ch === ']') return { end: i };
    if (ch === '[') {
      return {
        reason:
          'may not hold an unescaped "[" in a character class (POSIX classes like [:alpha:] differ between engines)',
      };
    }
    if (ch === '-' && previous !== 'none' && value[i + 1] !== ']' && value[i + 1] !== undefined) {
      // A range: both ends must be single characters.
      const end = readClassItem(value, i + 1, escapes);
      if ('reason' in end) return end;
      if (previous !== 'char' || end.kind !== 'char') {
        return {
          reason:
            'may only form a range in a character class between two single characters (not \\d, \\w, \\s or another range)',
        };
      }
      previous = 'range';
      i = end.next;
      continue;
    }
    const item = readClassItem(value, i, escapes);
    if ('reason' in item) return item;
    previous = item.kind;
    i = item.next;
  }
  return { reason: 'is not a valid regular expression' };
}

/** Reads the `{` at `start`: it must open a quantifier whose counts PCRE accepts. */
function scanBrace(value: string, start: number): Scan {
  const quantifier = BRACE_QUANTIFIER.exec(value.slice(start));
  if (quantifier === null) {
    return {
      reason: 'may only use "{" to open a quantifier {n}, {n,} or {n,m} (escape a literal one as "\\{")',
    };
  }
  const counts = [quantifier[1], quantifier[2]].filter((count) => count !== undefined && count !== '');
  if (counts.some((count) => Number(count) > MAX_REPEAT)) {
    return { reason: `may not repeat more than ${MAX_REPEAT} times in {n,m}` };
  }
  return { end: start + quantifier[0].length - 1 };
}

/**
 * Checks that `value` is in the portable subset: escapes only of `PORTABLE_ESCAPES` (plus
 * `extraEscapes`); no `(?` group other than `(?:` (no look-arounds, named groups, inline flags or
 * verbs); character classes that neither start with `]`, nor hold `[`, nor range to or from a
 * class escape; `{` only as a quantifier of at most 65535; and it compiles as a JavaScript
 * regular expression. Returns a reason for a problem message, or undefined. Length and
 * character-set limits are the caller's.
 */
export function checkPortableRegex(value: string, extraEscapes = ''): string | undefined {
  const escapes = PORTABLE_ESCAPES + extraEscapes;
  // The pattern with escapes and classes blanked out, to look for groups in.
  let structure = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\') {
      const next = value[i + 1];
      if (next === undefined || !escapes.includes(next)) return escapeReason(escapes);
      i++;
      structure += 'x';
      continue;
    }
    if (ch === '[' || ch === '{') {
      const scan = ch === '[' ? scanClass(value, i, escapes) : scanBrace(value, i);
      if ('reason' in scan) return scan.reason;
      i = scan.end;
      structure += 'x';
      continue;
    }
    structure += ch;
  }
  if (/\(\?(?!:)/.test(structure)) return 'may not use "(?" groups other than "(?:"';
  try {
    new RegExp(value);
  } catch {
    return 'is not a valid regular expression';
  }
  return undefined;
}
