import { describe, expect, it } from 'vitest';
import { SUPPORTED_ANNOTATIONS as SUPPORTED } from './annotation-parsers.js';
import { parseAnnotations } from './annotations.js';
import { INGRESS_NGINX_ANNOTATIONS } from './ingress-nginx-annotations.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function parse(name: string, value: unknown) {
  return parseAnnotations({ [`${P}${name}`]: value });
}

describe('parseAnnotations', () => {
  it('passes over the checksum version annotation without a problem, since it is not for routing', () => {
    expect(parse('version', '3').problems).toEqual([]);
  });

  it('returns the defaults when there are no annotations', () => {
    expect(parseAnnotations(undefined)).toEqual({
      annotations: {
        sslRedirect: true,
        forceSslRedirect: false,
        useRegex: false,
        allowSourceRanges: [],
        backendProtocol: 'HTTP',
      },
      problems: [],
    });
  });

  it.each([
    ['ssl-redirect', 'false', { sslRedirect: false }],
    ['ssl-redirect', 'TRUE', { sslRedirect: true }],
    ['force-ssl-redirect', 'true', { forceSslRedirect: true }],
    ['use-regex', 'True', { useRegex: true }],
    ['use-regex', '1', { useRegex: true }],
    ['force-ssl-redirect', 't', { forceSslRedirect: true }],
    ['ssl-redirect', 'F', { sslRedirect: false }],
    ['ssl-redirect', '0', { sslRedirect: false }],
    ['enable-global-auth', 'False', { enableGlobalAuth: false }],
    ['rewrite-target', '/', { rewriteTarget: '/' }],
    ['rewrite-target', '/v2/api_x-y.z~', { rewriteTarget: '/v2/api_x-y.z~' }],
    ['proxy-connect-timeout', '1', { connectTimeoutSeconds: 1 }],
    ['proxy-connect-timeout', '3600', { connectTimeoutSeconds: 3600 }],
    ['proxy-read-timeout', '86400', { readTimeoutSeconds: 86400 }],
    ['proxy-send-timeout', '30', { sendTimeoutSeconds: 30 }],
    ['proxy-body-size', '0', { maxBodyBytes: 0 }],
    ['proxy-body-size', '512k', { maxBodyBytes: 512 * 1024 }],
    ['proxy-body-size', '8M', { maxBodyBytes: 8 * 1024 * 1024 }],
    ['proxy-body-size', '1g', { maxBodyBytes: 1024 ** 3 }],
    ['proxy-body-size', '1024', { maxBodyBytes: 1024 }],
    ['proxy-body-size', '999999999', { maxBodyBytes: 999_999_999 }],
    ['backend-protocol', 'https', { backendProtocol: 'HTTPS' }],
    ['backend-protocol', 'GRPC', { backendProtocol: 'GRPC' }],
    ['backend-protocol', 'grpcs', { backendProtocol: 'GRPCS' }],
    ['backend-protocol', 'HTTP', { backendProtocol: 'HTTP' }],
    ['whitelist-source-range', '10.0.0.0/8', { allowSourceRanges: ['10.0.0.0/8'] }],
    [
      'whitelist-source-range',
      ' 192.168.0.1 ,10.0.0.0/8,10.0.0.0/8',
      { allowSourceRanges: ['10.0.0.0/8', '192.168.0.1'] },
    ],
    ['allowlist-source-range', '2001:DB8::/32,::1', { allowSourceRanges: ['2001:db8::/32', '::1'] }],
    ['upstream-vhost', 'internal.example.com', { upstreamHost: 'internal.example.com' }],
    ['denylist-source-range', '10.0.0.0/8, ::1', { denySourceRanges: ['10.0.0.0/8', '::1'] }],
    ['blacklist-source-range', '192.168.0.0/16', { denySourceRanges: ['192.168.0.0/16'] }],
    ['upstream-vhost', 'internal:8080', { upstreamHost: 'internal:8080' }],
  ])('parses %s: %j', (name, value, expected) => {
    const result = parse(name, value);
    expect(result.problems).toEqual([]);
    expect(result.annotations).toMatchObject(expected);
  });

  it.each([
    ['x-forwarded-prefix', 'prefix'],
    ['x-forwarded-prefix', '/a"b'],
    ['x-forwarded-prefix', '/$1'],
  ])('refuses %s: %j, naming the annotation', (name, value) => {
    const result = parse(name, value);
    expect(result.annotations).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({ field: `metadata.annotations["${P}${name}"]`, severity: 'error', value }),
    ]);
  });

  it('parses server-alias into unique host names and from-to-www-redirect', () => {
    expect(
      parse('server-alias', ' a.example.com,*.b.example.com , a.example.com').annotations?.serverAliases,
    ).toEqual(['a.example.com', '*.b.example.com']);
    expect(parse('from-to-www-redirect', 'true').annotations?.fromToWwwRedirect).toBe(true);
  });

  it.each([
    ['server-alias', ','],
    ['server-alias', 'a.example.com b.example.com'],
    ['server-alias', 'A.example.com'],
    ['server-alias', 'a.example.com;'],
    ['server-alias', '10.0.0.1'],
    ['server-alias', Array.from({ length: 65 }, (_, index) => `h${index}.example.com`).join(',')],
    ['from-to-www-redirect', 'yes'],
  ])('refuses %s: %j', (name, value) => {
    const result = parse(name, value);
    expect(result.annotations).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({ field: `metadata.annotations["${P}${name}"]`, severity: 'error' }),
    ]);
  });

  it('parses x-forwarded-prefix', () => {
    expect(parse('x-forwarded-prefix', '/api').annotations?.forwardedPrefix).toBe('/api');
  });

  const hostile = [
    '',
    ' ',
    'x;',
    '";',
    '${x}',
    '$host',
    '1\n',
    '\u0000',
    '{',
    '}',
    '#',
    '\\',
    'é',
    'a'.repeat(5000),
  ];

  it.each([
    ...['ssl-redirect', 'force-ssl-redirect', 'use-regex'].flatMap((name) =>
      ['yes', 'tRuE', 'fALSE', 'on', '2', 'true ', ' false', 'truee', ...hostile].map((value) => [
        name,
        value,
      ]),
    ),
    ...[
      '/$2',
      'relative',
      '/a b',
      '/a?b=c',
      '/$0',
      '/$a',
      '/${1}',
      'http://evil.example.com/',
      '/%2e',
      ...hostile,
    ].map((value) => ['rewrite-target', value]),
    ...['proxy-connect-timeout', 'proxy-read-timeout', 'proxy-send-timeout'].flatMap((name) =>
      ['0', '-1', '1.5', '10s', '1e3', '0x10', '9999999', ' 5', ...hostile].map((value) => [name, value]),
    ),
    ['proxy-connect-timeout', '3601'],
    ['proxy-read-timeout', '86401'],
    ...['-1', '1t', '1.5m', 'm', '01m', '10 m', '1000000000m', ...hostile].map((value) => [
      'proxy-body-size',
      value,
    ]),
    ...['FCGI', 'AJP', 'H2C', 'http2', ...hostile].map((value) => ['backend-protocol', value]),
    ...['whitelist-source-range', 'allowlist-source-range'].flatMap((name) =>
      [
        '10.0.0.0/33',
        '10.0.0/8',
        '10.0.0.0/',
        '::1/129',
        'fe80::1%eth0',
        '10.0.0.0/08',
        'all',
        ',',
        'localhost',
        ...hostile,
        Array(300).fill('10.0.0.1').join(','),
      ].map((value) => [name, value]),
    ),
    ...['*.example.com', 'a b', 'host:0', 'host:70000', 'host:', 'UPPER', 'a;b', ...hostile].map((value) => [
      'upstream-vhost',
      value,
    ]),
  ])('refuses %s: %j and names annotation and value', (name, value) => {
    const result = parse(name, value);
    expect(result.annotations).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        field: `metadata.annotations["${P}${name}"]`,
        severity: 'error',
        message: expect.stringContaining(name),
      }),
    ]);
    expect(result.problems[0]?.value).toBe(value.length <= 4096 ? value : value.slice(0, 64));
  });

  it.each([1, true, null, { a: 1 }, ['x']])('refuses a value that is not a string: %j', (value) => {
    expect(parse('use-regex', value).problems).toEqual([
      expect.objectContaining({ message: expect.stringContaining('must be a string') }),
    ]);
  });

  it.each([
    'configuration-snippet',
    'server-snippet',
    'auth-url',
    'secure-verify-ca-secret',
    'global-rate-limit',
  ])(
    'leaves the Ingress out for the unsupported annotation %s, which could widen access if ignored',
    (name) => {
      const result = parse(name, 'anything');
      expect(result.annotations).toBeUndefined();
      expect(result.problems[0]).toMatchObject({ severity: 'error' });
    },
  );

  const refused = INGRESS_NGINX_ANNOTATIONS.filter(
    (entry) => entry.refusal !== undefined && !SUPPORTED.has(entry.name),
  ).map((entry) => entry.name);

  it.each(refused)('leaves the Ingress out for %s, which protects something we cannot honour', (name) => {
    const result = parse(name, 'true');
    expect(result.annotations).toBeUndefined();
    expect(result.problems).toEqual([
      {
        field: `metadata.annotations["${P}${name}"]`,
        message: expect.stringMatching(
          new RegExp(`^annotation "${name}" is not supported; the Ingress is not served without it, since `),
        ),
        severity: 'error',
        code: 'refused-annotation',
      },
    ]);
  });

  it.each([
    'limit-rate',
    'limit-rate-after',
    'enable-modsecurity',
    'enable-owasp-core-rules',
    'modsecurity-transaction-id',
    'modsecurity-snippet',
    'secure-verify-ca-secret',
    'configuration-snippet',
    'server-snippet',
    'stream-snippet',
    'auth-snippet',
    'ssl-ciphers',
  ])('counts %s among the refused annotations', (name) => {
    expect(refused).toContain(name);
  });

  it.each([
    ['limit-rps-per-user', '5'],
    ['global-rate-limit-burst', '5'],
    ['modsecurity-rules', 'x'],
    ['proxy-ssl-crl', 'x'],
    ['auth-new-thing', 'x'],
    ['canary-by-query', 'x'],
    ['my-snippet', 'x'],
  ])('refuses %s, an unknown name of a protecting family', (name, value) => {
    expect(parse(name, value).annotations).toBeUndefined();
  });

  it.each([
    ['enable-modsecurity', 'false'],
    ['enable-owasp-core-rules', ' FALSE '],
    ['enable-modsecurity', '0'],
    ['enable-modsecurity', 'F'],
    ['limit-rate', '0'],
    ['limit-rate-after', '0'],
  ])('serves with a warning %s: %j, which turns the protection off', (name, value) => {
    const result = parse(name, value);
    expect(result.annotations).toBeDefined();
    expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning' })]);
  });

  it.each(['limit-burst-multiplier', 'ssl-prefer-server-ciphers'])(
    'serves with a warning %s, which only loosens a protection',
    (name) => {
      const result = parse(name, '5');
      expect(result.annotations).toBeDefined();
      expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning' })]);
    },
  );

  it('ignores other unsupported annotations with a warning', () => {
    const result = parse('mirror-target', 'http://m.test');
    expect(result.annotations).toBeDefined();
    expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning' })]);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])(
    'reads the name %s as an unsupported annotation, not as a property of the parser table',
    (name) => {
      const result = parseAnnotations(JSON.parse(JSON.stringify({ [`${P}${name}`]: 'x' })));
      expect(result.annotations).toBeDefined();
      expect(result.problems).toEqual([
        expect.objectContaining({
          severity: 'warning',
          message: `annotation "${name}" is not supported and is ignored`,
        }),
      ]);
    },
  );

  it('ignores annotations of other prefixes and a custom prefix replaces the default', () => {
    expect(parseAnnotations({ 'example.com/use-regex': 'maybe' }).problems).toEqual([]);
    expect(parseAnnotations({ 'example.com/use-regex': 'true' }, 'example.com').annotations?.useRegex).toBe(
      true,
    );
  });

  it('prefers denylist-source-range over blacklist-source-range', () => {
    const result = parseAnnotations({
      [`${P}blacklist-source-range`]: '10.0.0.2',
      [`${P}denylist-source-range`]: '10.0.0.1',
    });
    expect(result.annotations?.denySourceRanges).toEqual(['10.0.0.1']);
  });

  it.each(['denylist-source-range', 'blacklist-source-range'])(
    'refuses %s that is not a CIDR list',
    (name) => {
      const result = parse(name, '10.0.0.0/8, all');
      expect(result.annotations).toBeUndefined();
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: `metadata.annotations["${P}${name}"]`,
          message: expect.stringContaining('"all"'),
        }),
      ]);
    },
  );

  it('prefers allowlist-source-range over whitelist-source-range', () => {
    const result = parseAnnotations({
      [`${P}allowlist-source-range`]: '10.0.0.1',
      [`${P}whitelist-source-range`]: '10.0.0.2',
    });
    expect(result.annotations?.allowSourceRanges).toEqual(['10.0.0.1']);
  });

  it('reports every invalid annotation, not just the first', () => {
    const result = parseAnnotations({ [`${P}use-regex`]: 'x', [`${P}proxy-body-size`]: 'y' });
    expect(result.problems).toHaveLength(2);
  });

  it.each([null, 'text', ['a'], 3])('refuses annotations that are not a map: %j', (raw) => {
    const result = parseAnnotations(raw);
    if (raw === null) expect(result.annotations).toBeDefined();
    else expect(result.problems[0]?.field).toBe('metadata.annotations');
  });
});
