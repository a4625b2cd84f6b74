import { describe, expect, it } from 'vitest';
import {
  countDirectives,
  listDirectivePaths,
  listUnquotedTokens,
  parseNginxConf,
} from './nginx-conf-parser.js';

describe('parseNginxConf', () => {
  it('keeps quoted text as one argument, so quoted braces and semicolons add nothing', () => {
    const tree = parseNginxConf('http { server { location "/a; } server {" { return 404; } } }');
    expect([...listDirectivePaths(tree)]).toEqual([
      'http',
      'http/server',
      'http/server/location',
      'http/server/location/return',
    ]);
    expect(tree[0]?.children?.[0]?.children?.[0]?.args).toEqual([{ value: '/a; } server {', quoted: true }]);
  });

  it('sees a directive smuggled in by an unquoted value', () => {
    const tree = parseNginxConf('http { proxy_read_timeout 60; ssl_engine /tmp/x.so; }');
    expect(listDirectivePaths(tree)).toContain('http/ssl_engine');
  });

  it('treats # as a comment only where a token starts, and a newline ends it', () => {
    const tree = parseNginxConf('a b#c;\n# note\nd;');
    expect(tree).toEqual([
      { name: 'a', args: [{ value: 'b#c', quoted: false }] },
      { name: 'd', args: [] },
    ]);
  });

  it('skips Lua block bodies and handles escapes and `)` after a quoted string', () => {
    const tree = parseNginxConf(
      'x_by_lua_block { if a then ngx.say("}") end }\nif ($a = "b\\"c") { return 1; }',
    );
    expect(tree.map((d) => d.name)).toEqual(['x_by_lua_block', 'if']);
    expect(tree[1]?.args[2]).toEqual({ value: 'b"c', quoted: true });
    expect(listUnquotedTokens(tree)).toContain(')');
    expect(countDirectives(tree, 'return')).toBe(1);
  });

  it.each(['a {', 'a }', 'a', '"a" b"'])('refuses the broken text %j', (text) => {
    expect(() => parseNginxConf(text)).toThrow();
  });
});
