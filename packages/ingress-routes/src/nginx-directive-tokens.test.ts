import { describe, expect, it } from 'vitest';
import { MAX_SNIPPET_DIRECTIVES, tokenizeDirectives } from './nginx-directive-tokens.js';

function directivesOf(text: string) {
  const result = tokenizeDirectives(text);
  if ('problem' in result) throw new Error(result.problem);
  return result.directives.map(({ name, args }) => [name, ...args]);
}

function problemOf(text: string): string {
  const result = tokenizeDirectives(text);
  if (!('problem' in result)) throw new Error(`no problem in ${JSON.stringify(text)}`);
  return result.problem;
}

describe('tokenizeDirectives', () => {
  it('reads words and directives ended by ";" over lines and tabs', () => {
    expect(directivesOf('add_header X-A one;\n\tmore_clear_headers  Server X-B ;\r\n')).toEqual([
      ['add_header', 'X-A', 'one'],
      ['more_clear_headers', 'Server', 'X-B'],
    ]);
  });

  it('gives the line each directive starts on', () => {
    const result = tokenizeDirectives('\n\nadd_header\nX-A\n1;');
    expect(result).toEqual({ directives: [{ name: 'add_header', args: ['X-A', '1'], line: 3 }] });
  });

  it('unquotes single and double quoted strings with nginx escapes', () => {
    expect(
      directivesOf(`more_set_headers "X-A: a b" 'X-B: c;d' "q\\"x" 'it\\'s' "b\\\\s" "t\\tx" "k\\q";`),
    ).toEqual([['more_set_headers', 'X-A: a b', 'X-B: c;d', 'q"x', "it's", 'b\\s', 't\tx', 'k\\q']]);
  });

  it('reads an empty quoted string as an empty argument', () => {
    expect(directivesOf('proxy_set_header X-A "";')).toEqual([['proxy_set_header', 'X-A', '']]);
  });

  it('skips comments as nginx does, and keeps "#" inside a word or a string', () => {
    expect(directivesOf('# a comment; include x;\nadd_header X-A a#b; # more\nadd_header X-B "#c";')).toEqual(
      [
        ['add_header', 'X-A', 'a#b'],
        ['add_header', 'X-B', '#c'],
      ],
    );
  });

  it('gives no directives for an empty, blank or comment-only snippet', () => {
    expect(directivesOf('')).toEqual([]);
    expect(directivesOf(' \n\t ')).toEqual([]);
    expect(directivesOf('# nothing')).toEqual([]);
  });

  it('keeps ";" and newlines inside a string as text, never as a new directive', () => {
    expect(directivesOf('add_header X-A "1; include /etc/passwd";')).toEqual([
      ['add_header', 'X-A', '1; include /etc/passwd'],
    ]);
    expect(directivesOf('add_header X-A "a\nb";')).toEqual([['add_header', 'X-A', 'a\nb']]);
  });

  it('refuses blocks', () => {
    expect(problemOf('location / { return 200; }')).toBe(
      'line 1 in directive "location": blocks ("{" and "}") are not supported',
    );
    expect(problemOf('add_header X 1; }\nserver {')).toBe('line 1: blocks ("{" and "}") are not supported');
    expect(problemOf('access_by_lua_block {\n ngx.exit(200)\n}')).toContain('blocks');
    expect(problemOf('add_header X a{b;')).toContain('blocks');
  });

  it('refuses a directive without ";"', () => {
    expect(problemOf('add_header X-A 1')).toBe(
      'line 1 in directive "add_header": the directive is not ended by ";"',
    );
    expect(problemOf('add_header X-A 1;\nadd_header X-B')).toBe(
      'line 2 in directive "add_header": the directive is not ended by ";"',
    );
  });

  it('refuses ";" alone', () => {
    expect(problemOf(';')).toBe('line 1: ";" without a directive');
    expect(problemOf('add_header X 1;;')).toBe('line 1: ";" without a directive');
  });

  it('refuses unbalanced quotes', () => {
    expect(problemOf('add_header X "1;')).toBe(
      'line 1 in directive "add_header": a string opened with " is not closed',
    );
    expect(problemOf("add_header X '1;\n")).toContain("opened with ' is not closed");
    expect(problemOf('add_header X "1\\";')).toContain('is not closed');
  });

  it('refuses text glued to a closing quote and quotes inside words', () => {
    expect(problemOf('add_header X "1"2;')).toContain(
      'a quoted string must be followed by a space or ";", not "2"',
    );
    expect(problemOf('add_header X "1"{')).toContain('not "{"');
    expect(problemOf('add_header X a"b";')).toContain('a quote inside a word is not supported');
  });

  it('refuses backslashes outside quotes', () => {
    expect(problemOf('add_header X a\\;b;')).toContain('a backslash outside quotes is not supported');
  });

  it('refuses control characters other than tab, CR and LF, even inside strings', () => {
    expect(problemOf('add_header X "a\u0000b";')).toContain('holds a control character');
    expect(problemOf('add_header X a\u001bb;')).toContain('holds a control character');
    expect(problemOf('add_header\u000bX 1;')).toContain('holds a control character');
  });

  it('refuses a directive name that is no word of lower-case letters, digits and "_"', () => {
    expect(problemOf('"add_header" X 1;')).toContain('"add_header" is not a directive name');
    expect(problemOf('Add_Header X 1;')).toContain('is not a directive name');
    expect(problemOf('-x y;')).toContain('is not a directive name');
  });

  it(`refuses more than ${MAX_SNIPPET_DIRECTIVES} directives`, () => {
    expect(directivesOf('add_header X 1;'.repeat(MAX_SNIPPET_DIRECTIVES))).toHaveLength(
      MAX_SNIPPET_DIRECTIVES,
    );
    expect(problemOf('add_header X 1;'.repeat(MAX_SNIPPET_DIRECTIVES + 1))).toContain(
      `more than ${MAX_SNIPPET_DIRECTIVES} directives`,
    );
  });

  it('refuses more than 64 arguments', () => {
    expect(problemOf(`more_clear_headers ${'X '.repeat(65)};`)).toContain('more than 64 arguments');
  });

  it('reads very long input in linear time without throwing', () => {
    const long = `add_header X "${'a'.repeat(200_000)}";`;
    expect(directivesOf(long)[0]![2]).toHaveLength(200_000);
    expect(problemOf('"'.repeat(100_001))).toContain('quoted string must be followed');
    expect(problemOf('\\'.repeat(100_000))).toContain('backslash');
    expect(problemOf(`x ${'"a" '.repeat(30_000)}`)).toContain('more than 64 arguments');
  });
});
