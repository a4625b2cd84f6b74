/**
 * The regex paths of a virtual host, matched together. Tried one by one, N regex routes cost a
 * request N times `lua_regex_match_limit` steps: with 1,000 routes built to backtrack, half a
 * second of a worker every tenant shares. So the routes' patterns are joined into one PCRE
 * alternation per group, in route order, each alternative ending in an empty capture (a marker):
 * PCRE tries the alternatives in order from the start of the path, so the first one that matches
 * is the first route in precedence order, its marker is the one capture set, and the whole match
 * is bounded by one match limit, however many routes the group holds.
 *
 * A group ends after a route with further conditions (method, headers, query, listeners): when
 * those fail, the router goes on with the next group, never with the rest of the same one. A
 * group also ends before it would outgrow PCRE's compiled pattern limit (64 KiB): the size is
 * estimated from the pattern, an upper bound of what PCRE 8 compiles, and a group is kept to half
 * the limit. So the work of a request on a host is one match per group, whatever its route count.
 */

/** What grouping needs of one regex route. */
export interface RegexPath {
  /** The route's 1-based index in its host's routes. */
  index: number;
  /** The PCRE pattern, searched in the path (not anchored unless it starts with `^`). */
  pattern: string;
  ignoreCase: boolean;
  /** Whether the route has conditions besides its path (method, headers, query, listeners). */
  conditioned: boolean;
}

/**
 * Regex routes matched with one PCRE match: `pattern` joins their patterns in route order;
 * `routes[k]` is the index of the route whose marker is capture `markers[k]`.
 */
export interface RegexGroup {
  pattern: string;
  routes: number[];
  markers: number[];
}

/** PCRE 8's compiled pattern limit (LINK_SIZE 2) is 64 KiB; estimates are kept to half of it. */
export const REGEX_GROUP_CAPACITY = 32 * 1024;

/** OP_CLASS and its 32-byte bitmap. */
const CLASS_BYTES = 33;
/** A bracket: its opcode and link, the closing KET and link. */
const GROUP_BYTES = 6;
/** A capturing bracket also holds its number. */
const CAPTURE_BYTES = 8;
/** OP_ALT and its link. */
const ALTERNATIVE_BYTES = 3;
/** A quantifier on one character, class or type: OP_EXACT and OP_UPTO with their counts. */
const QUANTIFIER_BYTES = 8;
/** A copy of a repeated group also gets a BRAZERO and its own link. */
const COPY_BYTES = 4;
/** The outer bracket, `^` and OP_END of a group's pattern. */
const PATTERN_BYTES = 8;

const QUANTIFIER = /^(?:[*+?]|\{(\d+)(?:(,)(\d*))?\})\??/;

/** Index of the `]` closing the class that opens at `start`. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  // A `]` right after `[` or `[^` is a literal to PCRE (the portable subset refuses it anyway).
  if (pattern[i] === ']') i++;
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i;
}

/** How many copies of a group PCRE compiles for the quantifier `text`. */
function copiesOf(text: string): number {
  const counts = QUANTIFIER.exec(text);
  if (counts === null || counts[1] === undefined) return 2;
  const min = Number(counts[1]);
  if (counts[2] === undefined) return Math.max(min, 1);
  if (counts[3] === undefined || counts[3] === '') return min + 1;
  return Math.max(Number(counts[3]), min, 1);
}

/** The bytes of an item and what a quantifier after it (at `at`) adds; returns where it ends. */
function addQuantified(pattern: string, at: number, item: number, group: boolean): [number, number] {
  const quantifier = QUANTIFIER.exec(pattern.slice(at, at + 24));
  if (quantifier === null) return [item, at];
  // PCRE repeats a single item with counts, but writes a group out once per copy.
  const bytes = group ? (item + COPY_BYTES) * copiesOf(quantifier[0]) : item + QUANTIFIER_BYTES;
  return [bytes, at + quantifier[0].length];
}

/** The bytes of the groups open around the current position: an explicit stack, no recursion. */
interface OpenGroup {
  bytes: number;
  overhead: number;
}

/**
 * An upper bound of the bytes PCRE 8 compiles `pattern` to (without UTF), for patterns of
 * route-model's portable subset and the `(?i:` groups joining adds. Any other text gets a number
 * too (what PCRE refuses fails when it is compiled).
 */
export function estimateRegexBytes(pattern: string): number {
  const open: OpenGroup[] = [{ bytes: 0, overhead: 0 }];
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    const current = open[open.length - 1]!;
    if (ch === '|') {
      current.bytes += ALTERNATIVE_BYTES;
      i++;
    } else if (ch === '(') {
      const capturing = pattern[i + 1] !== '?';
      i += capturing ? 1 : 2;
      // `(?:` and `(?i:`; whatever else follows `(?` is counted as literals.
      const flags = /^i?:/.exec(pattern.slice(i, i + 2));
      if (flags !== null) i += flags[0].length;
      open.push({ bytes: 0, overhead: capturing ? CAPTURE_BYTES : GROUP_BYTES });
    } else if (ch === ')' && open.length > 1) {
      open.pop();
      const [bytes, end] = addQuantified(pattern, i + 1, current.overhead + current.bytes, true);
      open[open.length - 1]!.bytes += bytes;
      i = end;
    } else {
      let item: number;
      if (ch === '[') {
        item = CLASS_BYTES;
        i = classEnd(pattern, i) + 1;
      } else if (ch === '\\') {
        item = 'dDwWsS'.includes(pattern[i + 1] ?? '') ? 1 : 2;
        i += 2;
      } else {
        item = ch === '.' || ch === '^' || ch === '$' ? 1 : 2;
        i++;
      }
      const [bytes, end] = addQuantified(pattern, i, item, false);
      current.bytes += bytes;
      i = end;
    }
  }
  // Groups left open (PCRE refuses them) count as closed.
  let bytes = 0;
  while (open.length > 0) {
    const group = open.pop()!;
    bytes = group.overhead + group.bytes + bytes;
  }
  return PATTERN_BYTES + bytes;
}

/** The capturing groups of `pattern`: `(` not escaped, not in a class, not opening `(?`. */
export function countCaptures(pattern: string): number {
  let count = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (ch === '[') i = classEnd(pattern, i);
    else if (ch === '(' && pattern[i + 1] !== '?') count++;
  }
  return count;
}

/**
 * Whether `pattern` can only match at the start of the subject: it starts with `^` outside any
 * alternation (`^/a|/b` can match anywhere).
 */
export function isAnchoredRegex(pattern: string): boolean {
  if (!pattern.startsWith('^')) return false;
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (ch === '[') i = classEnd(pattern, i);
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '|' && depth === 0) return false;
  }
  return true;
}

/**
 * One route's alternative: its pattern in a group of its own case (the flag ends with the group),
 * preceded by a lazy any-run when it is not anchored, so that "it matches somewhere" is decided
 * from the start of the path, as for every other alternative, and the first alternative wins
 * rather than the leftmost match. Then the empty marker capture.
 */
function alternativeOf(path: RegexPath): string {
  const group = `${path.ignoreCase ? '(?i:' : '(?:'}${path.pattern})`;
  return `${isAnchoredRegex(path.pattern) ? '' : '[\\s\\S]*?'}${group}()`;
}

/**
 * Groups `paths` (regex routes in route order) for matching together; see the module comment.
 * `capacity` is the most estimated bytes of a group with more than one route (a route larger
 * than that gets a group of its own).
 */
export function groupRegexPaths(
  paths: readonly RegexPath[],
  capacity: number = REGEX_GROUP_CAPACITY,
): RegexGroup[] {
  const groups: RegexGroup[] = [];
  let alternatives: string[] = [];
  let routes: number[] = [];
  let markers: number[] = [];
  let bytes = PATTERN_BYTES;
  let captures = 0;
  const close = () => {
    if (routes.length === 0) return;
    groups.push({ pattern: `^(?:${alternatives.join('|')})`, routes, markers });
    alternatives = [];
    routes = [];
    markers = [];
    bytes = PATTERN_BYTES;
    captures = 0;
  };
  for (const path of paths) {
    const alternative = alternativeOf(path);
    const size = estimateRegexBytes(alternative) - PATTERN_BYTES + ALTERNATIVE_BYTES;
    if (bytes + size > capacity) close();
    captures += countCaptures(path.pattern) + 1;
    alternatives.push(alternative);
    routes.push(path.index);
    markers.push(captures);
    bytes += size;
    if (path.conditioned) close();
  }
  close();
  return groups;
}
