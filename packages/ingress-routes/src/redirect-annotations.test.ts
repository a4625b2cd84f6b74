import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function parse(name: string, value: unknown) {
  return parseAnnotations({ [`${P}${name}`]: value });
}

describe('redirect annotations (parseAnnotations)', () => {
  it.each([
    ['https://www.example.com', { scheme: 'https', hostname: 'www.example.com', path: '/', query: '' }],
    [
      'HTTP://Example.com:8080/a/b.html?x=1&y=%2F',
      { scheme: 'http', hostname: 'example.com', port: 8080, path: '/a/b.html', query: 'x=1&y=%2F' },
    ],
    ['https://example.com$request_uri', { scheme: 'https', hostname: 'example.com' }],
    ['https://10.0.0.1:8443$request_uri', { scheme: 'https', hostname: '10.0.0.1', port: 8443 }],
  ])('parses permanent-redirect %s with status 301', (value, target) => {
    const result = parse('permanent-redirect', value);
    expect(result.problems).toEqual([]);
    expect(result.annotations?.redirect).toEqual({ target, statusCode: 301 });
  });

  it('parses temporal-redirect with status 302, and both codes', () => {
    expect(parse('temporal-redirect', 'https://example.com/x').annotations?.redirect).toEqual({
      target: { scheme: 'https', hostname: 'example.com', path: '/x', query: '' },
      statusCode: 302,
    });
    const codes = parseAnnotations({
      [`${P}permanent-redirect`]: 'https://a.example.com',
      [`${P}permanent-redirect-code`]: '308',
    });
    expect(codes.annotations?.redirect?.statusCode).toBe(308);
    const temporal = parseAnnotations({
      [`${P}temporal-redirect`]: 'https://a.example.com',
      [`${P}temporal-redirect-code`]: '307',
    });
    expect(temporal.annotations?.redirect?.statusCode).toBe(307);
  });

  it('lets temporal-redirect win over permanent-redirect, as ingress-nginx does, with a warning', () => {
    const result = parseAnnotations({
      [`${P}permanent-redirect`]: 'https://permanent.example.com',
      [`${P}temporal-redirect`]: 'https://temporal.example.com',
    });
    expect(result.annotations?.redirect).toMatchObject({
      target: { hostname: 'temporal.example.com' },
      statusCode: 302,
    });
    expect(result.problems).toEqual([
      {
        field: `metadata.annotations["${P}permanent-redirect"]`,
        message: 'annotation "permanent-redirect" is ignored: temporal-redirect is set too and wins',
        severity: 'warning',
        code: 'annotation-without-effect',
      },
    ]);
  });

  it('warns that a redirect code without its URL does nothing', () => {
    const result = parse('permanent-redirect-code', '308');
    expect(result.annotations?.redirect).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('no effect') }),
    ]);
  });

  it.each([
    ['permanent-redirect', 'ftp://example.com'],
    ['permanent-redirect', '/relative'],
    ['permanent-redirect', 'https://example.com/$uri'],
    ['permanent-redirect', 'https://$host/x'],
    ['permanent-redirect', 'https://example.com/a b'],
    ['permanent-redirect', 'https://example.com/a;b'],
    ['permanent-redirect', 'https://example.com/#frag'],
    ['permanent-redirect', 'https://example.com:0/'],
    ['permanent-redirect', 'https://example.com:65536/'],
    ['permanent-redirect', 'https://*.example.com/'],
    ['permanent-redirect', 'https://user@example.com/'],
    ['permanent-redirect', 'https://example.com/?a=%zz'],
    ['permanent-redirect', 'https://example.com/?a="x"'],
    ['temporal-redirect', 'https://exa_mple.com/'],
    ['permanent-redirect-code', '300'],
    ['permanent-redirect-code', '304'],
    ['permanent-redirect-code', '200'],
    ['temporal-redirect-code', '0x12e'],
    ['app-root', 'app'],
    ['app-root', '/'],
    ['app-root', 'https://example.com/app'],
    ['app-root', '/app?x=%zz'],
    ['app-root', '/a b'],
  ])('refuses %s: %j, naming the annotation', (name, value) => {
    const result = parse(name, value);
    expect(result.annotations).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({ field: `metadata.annotations["${P}${name}"]`, severity: 'error', value }),
    ]);
  });

  it('parses app-root into a path and a query', () => {
    expect(parse('app-root', '/app1').annotations?.appRoot).toEqual({ path: '/app1', query: '' });
    expect(parse('app-root', '/app?tab=1').annotations?.appRoot).toEqual({ path: '/app', query: 'tab=1' });
  });
});
