import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { parseHashKey } from './proxy-annotations.js';
import { createRoutePolicy } from './route-policy.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function policyOf(annotations: Record<string, string>) {
  const parsed = parseAnnotations(
    Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}${k}`, v])),
  );
  return {
    policy: parsed.annotations && createRoutePolicy(parsed.annotations, 's'),
    problems: parsed.problems,
  };
}

describe('parseHashKey', () => {
  it('reads variables and text', () => {
    expect(parseHashKey('$host${request_uri}-$http_x_user_id:$cookie_sid$arg_u$remote_addr')).toEqual([
      { type: 'host' },
      { type: 'requestUri' },
      { type: 'text', value: '-' },
      { type: 'header', name: 'x-user-id' },
      { type: 'text', value: ':' },
      { type: 'cookie', name: 'sid' },
      { type: 'query', name: 'u' },
      { type: 'clientAddress' },
    ]);
  });

  it.each(['$ssl_client_cert', 'user', '$uri;rm', '$host $uri'])('refuses %j', (value) => {
    expect(typeof parseHashKey(value)).toBe('string');
  });
});

describe('proxy annotations (parseAnnotations → createRoutePolicy)', () => {
  it('sets the hash key, the tries and the response rewrites', () => {
    const { policy, problems } = policyOf({
      'upstream-hash-by': '$request_uri',
      'proxy-next-upstream-tries': '0',
      'proxy-redirect-from': 'http://a/',
      'proxy-redirect-to': 'https://b/',
      'proxy-cookie-domain': 'a.local b.test',
      'proxy-cookie-path': '/app/ /',
    });
    expect(problems).toEqual([]);
    expect(policy).toMatchObject({
      hashKey: [{ type: 'requestUri' }],
      upstreamTries: 0,
      locationRewrite: { from: 'http://a/', to: 'https://b/' },
      cookieDomainRewrite: { from: 'a.local', to: 'b.test' },
      cookiePathRewrite: { from: '/app/', to: '/' },
    });
  });

  it('sets subsets of upstream-hash-by (3 by default) and ewma', () => {
    expect(
      policyOf({ 'upstream-hash-by': '$uri', 'upstream-hash-by-subset': 'true' }).policy?.hashSubsetSize,
    ).toBe(3);
    expect(
      policyOf({
        'upstream-hash-by': '$uri',
        'upstream-hash-by-subset': 'true',
        'upstream-hash-by-subset-size': '5',
      }).policy?.hashSubsetSize,
    ).toBe(5);
    expect(policyOf({ 'load-balance': 'ewma' }).policy?.loadBalancing).toBe('ewma');
    expect(policyOf({ 'load-balance': 'round_robin' }).policy?.loadBalancing).toBeUndefined();
  });

  it('sets the Connection header, the access log and satisfy any', () => {
    expect(
      policyOf({ 'connection-proxy-header': 'keep-alive', 'enable-access-log': 'false', satisfy: 'any' })
        .policy,
    ).toMatchObject({ upstreamConnectionHeader: 'keep-alive', accessLog: false, satisfy: 'any' });
    expect(policyOf({ 'enable-access-log': 'true', satisfy: 'all' }).policy).not.toHaveProperty('satisfy');
  });

  it('sets nothing for "off", and warns about a redirect half', () => {
    const { policy, problems } = policyOf({ 'proxy-cookie-domain': 'off', 'proxy-redirect-to': '/x' });
    expect(policy?.cookieDomainRewrite).toBeUndefined();
    expect(policy?.locationRewrite).toBeUndefined();
    expect(problems).toEqual([expect.objectContaining({ severity: 'warning' })]);
  });

  it.each([
    ['proxy-next-upstream-tries', '101'],
    ['proxy-redirect-from', 'default'],
    ['proxy-redirect-from', '~^http://(.*)'],
    ['proxy-redirect-to', '$scheme://x'],
    ['proxy-cookie-domain', 'only-one'],
    ['proxy-cookie-path', '/a /b;Secure'],
    ['upstream-hash-by', '$request_body'],
    ['load-balance', 'chash'],
    ['connection-proxy-header', 'close\r\nX: y'],
    ['connection-proxy-header', 'a b'],
    ['enable-access-log', 'no'],
    ['satisfy', 'some'],
    ['upstream-hash-by-subset', 'yes'],
    ['upstream-hash-by-subset-size', '0'],
  ])('leaves the Ingress out for %s: %j', (name, value) => {
    const { policy, problems } = policyOf({ [name]: value });
    expect(policy).toBeUndefined();
    expect(problems).toContainEqual(
      expect.objectContaining({ severity: 'error', field: `metadata.annotations["${P}${name}"]` }),
    );
  });
});
