import { describe, expect, it } from 'vitest';
import type { ConfigMapLike } from '@ingresskit/kube-objects';
import { A, ingress, path, secrets } from './testing/fixtures.js';
import { createIngressTranslator } from './ingress-translator.js';
import { SNIPPET_DIRECTIVES } from './snippet-directives.js';
import { translateIngress } from './translate-ingress.js';
import type { IngressReferences, IngressTranslationConfig } from './types.js';

const configMaps = new Map<string, ConfigMapLike>([
  [
    'shop/headers',
    {
      metadata: { namespace: 'shop', name: 'headers', resourceVersion: '1' },
      data: { 'X-Frame-Options': 'DENY', 'X-Shared': 'custom' },
    },
  ],
]);

const references: IngressReferences = {
  ...secrets(),
  configMap: (namespace, name) => configMaps.get(`${namespace}/${name}`),
};

const FIELD = `metadata.annotations["${A}configuration-snippet"]`;

function translateWith(annotations: Record<string, string>, config: IngressTranslationConfig = {}) {
  const result = translateIngress(
    ingress('web', { 'web.test': [path('/', 'Prefix', 'app')] }, { namespace: 'shop', annotations }),
    references,
    config,
  );
  return { result, policy: result.contribution?.hosts[0]?.routes[0]?.policy };
}

const ALLOW_ALL: IngressTranslationConfig = { allowedSnippetDirectives: SNIPPET_DIRECTIVES };

describe('translateIngress with configuration-snippet', () => {
  it('leaves the Ingress out without allowed directives, naming the flag', () => {
    const { result } = translateWith({ [`${A}configuration-snippet`]: 'more_set_headers "X-A: 1";' });
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        field: FIELD,
        severity: 'error',
        message:
          'annotation "configuration-snippet" is not supported; the Ingress is not served without it, since it is raw nginx configuration, accepted only when the controller\'s --allow-snippet-directives allows every directive it holds',
      }),
    ]);
  });

  it('serves the header changes of allowed directives, written over several lines', () => {
    const { result, policy } = translateWith(
      {
        [`${A}configuration-snippet`]:
          '# security headers\nmore_set_headers "X-Content-Type-Options: nosniff";\nmore_clear_headers Server;\nproxy_set_header X-Team blue;\n',
      },
      ALLOW_ALL,
    );
    expect(result.problems).toEqual([]);
    expect(policy?.responseHeaders).toEqual({
      remove: ['Server'],
      set: [{ name: 'X-Content-Type-Options', value: 'nosniff' }],
    });
    expect(policy?.requestHeaders).toEqual({ set: [{ name: 'X-Team', value: 'blue' }] });
  });

  it('leaves the Ingress out with an error naming the directive that is not allowed', () => {
    const { result } = translateWith(
      { [`${A}configuration-snippet`]: 'more_set_headers "X-A: 1";\nadd_header X-B 2;' },
      { allowedSnippetDirectives: ['more_set_headers'] },
    );
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        field: FIELD,
        severity: 'error',
        message: `annotation "configuration-snippet" cannot be translated (line 2, directive "add_header": it is not allowed by the controller's --allow-snippet-directives)`,
      }),
    ]);
  });

  it('leaves the Ingress out for a variable, a block or an unknown directive', () => {
    for (const snippet of [
      'add_header X-A $host;',
      'location /x { }',
      'include /etc/passwd;',
      'lua_need_request_body on;',
    ]) {
      const { result } = translateWith({ [`${A}configuration-snippet`]: snippet }, ALLOW_ALL);
      expect(result.contribution, snippet).toBeUndefined();
      expect(result.problems[0]?.message, snippet).toMatch(
        /^annotation "configuration-snippet" cannot be translated \(line 1/,
      );
    }
  });

  it('refuses control characters other than tab, CR and LF in a snippet', () => {
    const { result } = translateWith(
      { [`${A}configuration-snippet`]: 'add_header X-A "a\u0000";' },
      ALLOW_ALL,
    );
    expect(result.problems[0]?.message).toContain('holds a control character');
  });

  it('keeps server-snippet, auth-snippet and stream-snippet refused whatever directives are allowed', () => {
    for (const name of ['server-snippet', 'auth-snippet', 'stream-snippet']) {
      const { result } = translateWith({ [`${A}${name}`]: 'more_set_headers "X-A: 1";' }, ALLOW_ALL);
      expect(result.contribution, name).toBeUndefined();
      expect(result.problems[0]?.message, name).toContain(
        'it is raw nginx configuration, which is never accepted',
      );
    }
  });

  it('puts custom-headers over the snippet for the same response header, and the snippet over the ConfigMap add-headers', () => {
    const { result, policy } = translateWith(
      {
        [`${A}configuration-snippet`]:
          'more_set_headers "X-Frame-Options: SAMEORIGIN" "X-Snippet: 1";\nmore_clear_headers X-Global;',
        [`${A}custom-headers`]: 'headers',
      },
      {
        ...ALLOW_ALL,
        allowedResponseHeaders: ['X-Frame-Options', 'X-Shared'],
        headers: {
          response: [
            { name: 'X-Global', value: 'g' },
            { name: 'X-Snippet', value: 'default' },
            { name: 'X-Other', value: 'o' },
          ],
          request: [],
        },
      },
    );
    expect(result.problems).toEqual([]);
    expect(policy?.responseHeaders).toEqual({
      remove: ['X-Global'],
      set: [
        { name: 'X-Other', value: 'o' },
        { name: 'X-Snippet', value: '1' },
        { name: 'X-Frame-Options', value: 'DENY' },
        { name: 'X-Shared', value: 'custom' },
      ],
    });
  });

  it("puts the snippet's request headers over x-forwarded-prefix and the ConfigMap's proxy-set-headers", () => {
    const { policy } = translateWith(
      {
        [`${A}configuration-snippet`]:
          'proxy_set_header X-Forwarded-Prefix /s;\nmore_clear_input_headers X-Default;',
        [`${A}x-forwarded-prefix`]: '/p',
      },
      {
        ...ALLOW_ALL,
        headers: {
          response: [],
          request: [
            { name: 'X-Default', value: 'd' },
            { name: 'X-Kept', value: 'k' },
          ],
        },
      },
    );
    expect(policy?.requestHeaders).toEqual({
      remove: ['X-Default'],
      set: [
        { name: 'X-Kept', value: 'k' },
        { name: 'X-Forwarded-Prefix', value: '/s' },
      ],
    });
  });

  it('keeps the ConfigMap add-headers value beside an add_header of the same name', () => {
    const { policy } = translateWith(
      { [`${A}configuration-snippet`]: 'add_header X-Global mine;' },
      { ...ALLOW_ALL, headers: { response: [{ name: 'X-Global', value: 'g' }], request: [] } },
    );
    expect(policy?.responseHeaders).toEqual({
      set: [{ name: 'X-Global', value: 'g' }],
      add: [{ name: 'X-Global', value: 'mine' }],
    });
  });
});

describe('createIngressTranslator with allowedSnippetDirectives', () => {
  it('passes the allowed directives to every translation', () => {
    const web = ingress(
      'web',
      { 'web.test': [path('/', 'Prefix', 'app')] },
      { namespace: 'shop', annotations: { [`${A}configuration-snippet`]: 'add_header X-A 1;' } },
    );
    expect(createIngressTranslator().translate(web, references).contribution).toBeUndefined();
    const allowed = createIngressTranslator({ allowedSnippetDirectives: ['add_header'] });
    expect(
      allowed.translate(web, references).contribution?.hosts[0]?.routes[0]?.policy.responseHeaders,
    ).toEqual({
      add: [{ name: 'X-A', value: '1' }],
    });
  });
});
