/**
 * tokenizeDirectives: a snippet's text as nginx reads simple directives (words and quoted strings
 * ended by `;`), for translation into data. A strict subset of nginx's own reader: anything that
 * would make nginx read more than flat directives (blocks, backslashes outside quotes, a quote
 * inside a word) is refused rather than guessed at.
 */

/** One directive as written: its name and its arguments, unquoted and unescaped. */
export interface SnippetDirective {
  name: string;
  args: string[];
  /** The line (from 1) the directive starts on, for problems. */
  line: number;
}

/** Most directives one snippet may hold. */
export const MAX_SNIPPET_DIRECTIVES = 64;

/** Most arguments one directive may take. */
export const MAX_DIRECTIVE_ARGS = 64;

const DIRECTIVE_NAME = /^[a-z_][a-z0-9_]*$/;

// What nginx's reader turns `\x` into inside quotes; any other backslash is kept with its character.
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** `text` for a problem message: quoted, escaped and cut to 64 characters. */
export function quoteSnippetText(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}...` : text);
}

function isSpace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\r' || char === '\n';
}

// Characters that end an unquoted word, or may not appear in one.
function isWordEnd(char: string): boolean {
  return isSpace(char) || char === ';' || char === '{' || char === '}' || char === '"' || char === "'";
}

/**
 * The directives of `text`, in order, or why it is not a flat list of simple directives (the
 * reason names the line and, once known, the directive). Comments (`#` to the end of the line)
 * are skipped as nginx skips them. Never throws; linear in the length of `text`.
 */
export function tokenizeDirectives(text: string): { directives: SnippetDirective[] } | { problem: string } {
  const directives: SnippetDirective[] = [];
  let words: string[] = [];
  let start = 1;
  let line = 1;
  let i = 0;
  const fail = (why: string): { problem: string } => {
    const what = words.length > 0 ? ` in directive ${quoteSnippetText(words[0]!)}` : '';
    return { problem: `line ${line}${what}: ${why}` };
  };
  // eslint-disable-next-line no-control-regex -- control characters other than whitespace are refused
  const control = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(text);
  if (control !== null) {
    line = text.slice(0, control.index).split('\n').length;
    return fail('holds a control character');
  }
  // A quoted first word is a string, never a directive name.
  let quotedName = false;
  while (i < text.length) {
    const char = text[i]!;
    if (isSpace(char)) {
      if (char === '\n') line += 1;
      i += 1;
      continue;
    }
    if (char === '#') {
      while (i < text.length && text[i] !== '\n') i += 1;
      continue;
    }
    if (char === '{' || char === '}') return fail('blocks ("{" and "}") are not supported');
    if (char === ';') {
      if (words.length === 0) return fail('";" without a directive');
      const [name, ...args] = words;
      if (quotedName || !DIRECTIVE_NAME.test(name!))
        return fail(`${quoteSnippetText(name!)} is not a directive name`);
      if (directives.length === MAX_SNIPPET_DIRECTIVES)
        return fail(`more than ${MAX_SNIPPET_DIRECTIVES} directives`);
      directives.push({ name: name!, args, line: start });
      words = [];
      i += 1;
      continue;
    }
    if (words.length === 0) {
      start = line;
      quotedName = char === '"' || char === "'";
    }
    if (words.length > MAX_DIRECTIVE_ARGS) return fail(`more than ${MAX_DIRECTIVE_ARGS} arguments`);
    if (char === '"' || char === "'") {
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) return fail(`a string opened with ${char} is not closed`);
        const inner = text[j]!;
        if (inner === char) break;
        if (inner === '\\' && j + 1 < text.length) {
          const next = text[j + 1]!;
          value += Object.hasOwn(ESCAPES, next) ? ESCAPES[next]! : `\\${next}`;
          if (next === '\n') line += 1;
          j += 2;
          continue;
        }
        if (inner === '\n') line += 1;
        value += inner;
        j += 1;
      }
      i = j + 1;
      const after = text[i];
      if (after !== undefined && !isSpace(after) && after !== ';')
        return fail(`a quoted string must be followed by a space or ";", not ${JSON.stringify(after)}`);
      words.push(value);
      continue;
    }
    let j = i;
    while (j < text.length && !isWordEnd(text[j]!)) {
      if (text[j] === '\\') return fail('a backslash outside quotes is not supported');
      j += 1;
    }
    if (j < text.length && (text[j] === '"' || text[j] === "'"))
      return fail('a quote inside a word is not supported');
    words.push(text.slice(i, j));
    i = j;
  }
  if (words.length > 0) return fail('the directive is not ended by ";"');
  return { directives };
}
