import { describe, expect, it } from 'vitest';
import { SNIPPET_DIRECTIVES, translateSnippet } from './snippet-directives.js';

const ALL = new Set<string>(SNIPPET_DIRECTIVES);

function headersOf(text: string, allowed: ReadonlySet<string> = ALL) {
  const result = translateSnippet(text, allowed);
  if ('problem' in result) throw new Error(result.problem);
  return result.headers;
}

function problemOf(text: string, allowed: ReadonlySet<string> = ALL): string {
  const result = translateSnippet(text, allowed);
  if (!('problem' in result)) throw new Error(`no problem in ${JSON.stringify(text)}`);
  return result.problem;
}

describe('translateSnippet', () => {
  it('translates more_set_headers and more_clear_headers into response changes', () => {
    expect(
      headersOf('more_set_headers "X-Frame-Options: DENY" "X-A:b";\nmore_clear_headers Server X-Powered-By;'),
    ).toEqual({
      response: {
        set: [
          { name: 'X-Frame-Options', value: 'DENY' },
          { name: 'X-A', value: 'b' },
        ],
        remove: ['Server', 'X-Powered-By'],
      },
    });
  });

  it('translates the input-header directives and proxy_set_header into request changes', () => {
    expect(
      headersOf(
        'more_set_input_headers "X-Team: blue";\nmore_clear_input_headers Cookie;\nproxy_set_header X-Env "prod eu";',
      ),
    ).toEqual({
      request: {
        remove: ['Cookie'],
        set: [
          { name: 'X-Team', value: 'blue' },
          { name: 'X-Env', value: 'prod eu' },
        ],
      },
    });
  });

  it('translates add_header (with or without always) into an added value, and proxy_hide_header into a removal', () => {
    expect(headersOf('add_header X-A 1;\nadd_header X-A 2 always;\nproxy_hide_header X-Backend;')).toEqual({
      response: {
        remove: ['X-Backend'],
        add: [
          { name: 'X-A', value: '1' },
          { name: 'X-A', value: '2' },
        ],
      },
    });
  });

  it('clears a header for "Name:" or a bare name in more_set_headers, and for an empty proxy_set_header', () => {
    expect(headersOf('more_set_headers "X-A:" X-B;\nproxy_set_header X-C "";')).toEqual({
      response: { remove: ['X-A', 'X-B'] },
      request: { remove: ['X-C'] },
    });
  });

  it('adds nothing for an add_header with an empty value, as nginx', () => {
    expect(headersOf('add_header X-A "";')).toEqual({});
  });

  it('applies directives in order: a later one wins for the same header, whatever its case', () => {
    expect(headersOf('more_set_headers "X-A: 1";\nmore_set_headers "x-a: 2";')).toEqual({
      response: { set: [{ name: 'x-a', value: '2' }] },
    });
    expect(headersOf('more_set_headers "X-A: 1";\nmore_clear_headers X-A;')).toEqual({
      response: { remove: ['X-A'] },
    });
    expect(headersOf('more_clear_headers X-A;\nmore_set_headers "X-A: 1";')).toEqual({
      response: { remove: ['X-A'], set: [{ name: 'X-A', value: '1' }] },
    });
    expect(headersOf('add_header X-A 1;\nmore_set_headers "X-A: 2";')).toEqual({
      response: { set: [{ name: 'X-A', value: '2' }] },
    });
  });

  it("keeps add_header's value through a later proxy_hide_header, which hides only the backend's", () => {
    expect(headersOf('add_header X-A 1;\nproxy_hide_header X-A;')).toEqual({
      response: { remove: ['X-A'], add: [{ name: 'X-A', value: '1' }] },
    });
  });

  it('gives nothing for a snippet of comments only', () => {
    expect(headersOf('# no directives\n')).toEqual({});
  });

  it('refuses a directive it does not translate, naming it and its line', () => {
    expect(problemOf('add_header X 1;\ninclude /etc/nginx/secrets;')).toBe(
      `line 2, directive "include": it is not one of the directives this controller translates (${SNIPPET_DIRECTIVES.join(', ')})`,
    );
    expect(problemOf('content_by_lua "os.execute(1)";')).toContain(
      'directive "content_by_lua": it is not one',
    );
    expect(problemOf('return 200 "hi";')).toContain('directive "return": it is not one');
    expect(problemOf('proxy_pass http://evil;')).toContain('directive "proxy_pass": it is not one');
  });

  it('refuses a directive the operator did not allow', () => {
    const allowed = new Set(['more_set_headers']);
    expect(headersOf('more_set_headers "X-A: 1";', allowed)).toEqual({
      response: { set: [{ name: 'X-A', value: '1' }] },
    });
    expect(problemOf('more_set_headers "X-A: 1";\nadd_header X-B 2;', allowed)).toBe(
      `line 2, directive "add_header": it is not allowed by the controller's --allow-snippet-directives`,
    );
  });

  it('refuses nginx variables in names and values', () => {
    expect(problemOf('add_header X-A $host;')).toBe(
      'line 1, directive "add_header": the value of "X-A" holds "$": nginx variables are not supported, values are literal text',
    );
    expect(problemOf('more_set_headers "X-A: ${host}";')).toContain('holds "$"');
    expect(problemOf('proxy_set_header X-A "a$remote_addr";')).toContain('holds "$"');
    expect(problemOf('add_header $x 1;')).toContain('"$x" is not a header name');
  });

  it('refuses header values that could split a message', () => {
    expect(problemOf('add_header X-A "a\\r\\nSet-Cookie: x=1";')).toContain(
      'must be at most 2048 printable ASCII characters',
    );
    expect(problemOf('more_set_headers "X-A: a\nb";')).toContain('printable ASCII');
    expect(problemOf(`add_header X-A "${'a'.repeat(2049)}";`)).toContain('at most 2048');
  });

  it('refuses header names outside the grammar, wildcards and framing headers', () => {
    expect(problemOf('more_clear_headers "X-Hidden-*";')).toBe(
      'line 1, directive "more_clear_headers": "X-Hidden-*": wildcards are not supported, name each header',
    );
    expect(problemOf('more_set_headers "X A: 1";')).toContain('"X A" is not a header name (A-Z a-z 0-9 - _)');
    expect(problemOf('more_set_headers "Content-Length: 0";')).toContain(
      'is a header that frames the response',
    );
    expect(problemOf('add_header Transfer-Encoding chunked;')).toContain('frames the response');
    expect(problemOf('more_set_headers ": 1";')).toContain('is not a header name');
  });

  it('refuses request headers the gateway sets itself or that frame the request', () => {
    for (const name of [
      'Host',
      'X-Forwarded-For',
      'X-Real-IP',
      'X-Request-ID',
      'X-Forwarded-Proto',
      'Connection',
    ]) {
      expect(problemOf(`proxy_set_header ${name} x;`)).toContain('is a header the gateway sets itself');
    }
    expect(problemOf('more_clear_input_headers X-Forwarded-For;')).toContain('sets itself');
    expect(problemOf('more_set_input_headers "X_Under: 1";')).toContain(
      'is not a header name (A-Z a-z 0-9 -)',
    );
  });

  it('refuses the -s, -t and -r options of headers-more, whose headers would hold for every status and type', () => {
    expect(problemOf("more_set_headers -s 404 'X-A: 1';")).toBe(
      'line 1, directive "more_set_headers": option "-s" is not supported (its headers would hold for every status and type)',
    );
    expect(problemOf("more_set_headers -t 'text/html' 'X-A: 1';")).toContain('option "-t"');
    expect(problemOf("more_set_input_headers -r 'X-A: 1';")).toContain('option "-r"');
    expect(problemOf('more_clear_headers -s 404 X-A;')).toContain('option "-s"');
  });

  it('refuses wrong argument counts', () => {
    expect(problemOf('add_header X-A;')).toContain('takes a name, a value and optionally "always"');
    expect(problemOf('add_header X-A 1 never;')).toContain('optionally "always"');
    expect(problemOf('add_header X-A 1 always x;')).toContain('optionally "always"');
    expect(problemOf('proxy_set_header X-A;')).toContain('takes a name and a value');
    expect(problemOf('proxy_hide_header;')).toContain('takes one header name');
    expect(problemOf('more_set_headers;')).toContain('needs at least one');
    expect(problemOf('more_clear_headers;')).toContain('needs at least one header name');
  });

  it('refuses injection through ";", newlines, braces and quotes as syntax errors or unknown directives', () => {
    expect(problemOf('add_header X-A 1; } location /x { return 200;')).toContain('blocks');
    expect(problemOf('add_header X-A "1"; include /etc/passwd;')).toContain('directive "include"');
    expect(problemOf('add_header X-A 1;\r\nlua_code_cache off;')).toContain('directive "lua_code_cache"');
    expect(problemOf('add_header X-A "1')).toContain('is not closed');
    expect(problemOf('add_header X-A 1')).toContain('not ended by ";"');
  });

  it('refuses more than 64 header changes on one side', () => {
    const names = Array.from({ length: 64 }, (_, index) => `X-${index}`).join(' ');
    expect(headersOf(`more_clear_headers ${names};`).response?.remove).toHaveLength(64);
    expect(problemOf(`more_clear_headers ${names};\nmore_clear_headers Y;`)).toBe(
      'line 2, directive "more_clear_headers": more than 64 response header changes',
    );
  });
});
