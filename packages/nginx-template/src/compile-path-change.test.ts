import { describe, expect, it } from 'vitest';
import { compileRoute } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

describe('compileRoute: path changes', () => {
  it('compiles path changes with route-model modifyPath semantics and ngx.re.sub templates', () => {
    const prefix = compileRoute(
      createTestRoute('r', {
        match: { path: { type: 'PathPrefix', value: '/foo/' } },
        action: forwardAction,
        policy: { rewrite: { type: 'ReplacePrefixMatch', value: '/' } },
      }),
    );
    expect(prefix.entry.policy?.rewrite).toEqual({ type: 'prefix', strip: 4, value: '' });
    const regex = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: { rewrite: { type: 'RegexReplace', pattern: '^/(a)(b)?', replacement: '/$1$10$x$$/$2' } },
      }),
    );
    expect(regex.entry.policy?.rewrite).toEqual({
      type: 'regex',
      pattern: '^/(a)(b)?',
      replacement: '/${1}${1}0$$x$$$$/${2}',
    });
    const redirect = compileRoute(
      createTestRoute('r', {
        match: { path: { type: 'PathPrefix', value: '/old' } },
        action: {
          type: 'redirect',
          redirect: {
            statusCode: 301,
            scheme: 'https',
            port: 8443,
            path: { type: 'ReplacePrefixMatch', value: '/new/' },
          },
        },
      }),
    );
    expect(redirect.entry.action).toEqual({
      type: 'redirect',
      status: 301,
      scheme: 'https',
      port: 8443,
      path: { type: 'prefix', strip: 4, value: '/new' },
    });
  });
});
