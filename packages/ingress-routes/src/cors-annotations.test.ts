import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function parse(name: string, value: unknown) {
  return parseAnnotations({ [`${P}${name}`]: value });
}

describe('CORS annotations (parseAnnotations)', () => {
  it('enables CORS with ingress-nginx defaults exactly', () => {
    expect(parse('enable-cors', 'true').annotations?.cors).toEqual({
      allowOrigins: ['*'],
      allowMethods: 'GET, PUT, POST, DELETE, PATCH, OPTIONS',
      allowHeaders:
        'DNT,X-CustomHeader,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Authorization',
      exposeHeaders: '',
      allowCredentials: true,
      maxAgeSeconds: 1728000,
    });
    expect(parse('enable-cors', 'false').annotations?.cors).toBeUndefined();
  });

  it('takes every cors-* option with enable-cors', () => {
    const result = parseAnnotations({
      [`${P}enable-cors`]: 'true',
      [`${P}cors-allow-origin`]:
        'https://origin-site.com:4443, http://*.origin-site.com ,https://example.org:1199',
      [`${P}cors-allow-methods`]: 'PUT, GET, POST, OPTIONS',
      [`${P}cors-allow-headers`]: 'X-Forwarded-For, X-app123-XPTO',
      [`${P}cors-expose-headers`]: '*, X-CustomResponseHeader',
      [`${P}cors-allow-credentials`]: 'false',
      [`${P}cors-max-age`]: '600',
    });
    expect(result.problems).toEqual([]);
    expect(result.annotations?.cors).toEqual({
      allowOrigins: ['https://origin-site.com:4443', 'http://*.origin-site.com', 'https://example.org:1199'],
      allowMethods: 'PUT, GET, POST, OPTIONS',
      allowHeaders: 'X-Forwarded-For, X-app123-XPTO',
      exposeHeaders: '*, X-CustomResponseHeader',
      allowCredentials: false,
      maxAgeSeconds: 600,
    });
  });

  it('warns that cors-* options do nothing without enable-cors', () => {
    const result = parseAnnotations({ [`${P}cors-max-age`]: '600', [`${P}enable-cors`]: 'false' });
    expect(result.annotations?.cors).toBeUndefined();
    expect(result.problems).toEqual([
      {
        field: `metadata.annotations["${P}cors-max-age"]`,
        message: 'annotation "cors-max-age" has no effect without enable-cors "true"',
        severity: 'warning',
        code: 'annotation-without-effect',
      },
    ]);
  });

  it.each([
    ['cors-allow-origin', '*, https://a.example.com'],
    ['cors-allow-origin', 'https://a.example.com/path'],
    ['cors-allow-origin', 'a.example.com'],
    ['cors-allow-origin', 'https://a.*.example.com'],
    ['cors-allow-origin', ','],
    ['cors-allow-methods', 'GET;POST'],
    ['cors-allow-methods', 'GET, $request_method'],
    ['cors-allow-headers', 'X-A,,X-B'],
    ['cors-allow-headers', 'X-A: 1'],
    ['cors-expose-headers', 'X-A, "x"'],
    ['cors-allow-credentials', 'yes'],
    ['cors-max-age', '-1'],
    ['cors-max-age', '1e3'],
    ['enable-cors', 'on'],
  ])('refuses %s: %j', (name, value) => {
    const result = parseAnnotations({ [`${P}enable-cors`]: 'true', [`${P}${name}`]: value });
    expect(result.annotations).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({ field: `metadata.annotations["${P}${name}"]`, severity: 'error', value }),
    ]);
  });

  it('checks a long CORS list that does not match in linear time', () => {
    const result = parse('cors-allow-methods', `${'GET '.repeat(1000)}!`);
    expect(result.problems).toEqual([expect.objectContaining({ severity: 'error' })]);
  });
});
