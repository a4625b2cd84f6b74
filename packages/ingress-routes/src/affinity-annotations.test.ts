import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { createRoutePolicy } from './route-policy.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function parse(annotations: Record<string, string>) {
  return parseAnnotations(Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}${k}`, v])));
}

describe('affinity annotations (parseAnnotations → createRoutePolicy)', () => {
  it('is balanced with cookie INGRESSCOOKIE by default', () => {
    const { annotations, problems } = parse({ affinity: 'cookie' });
    expect(problems).toEqual([]);
    expect(createRoutePolicy(annotations!, 's').sessionAffinity).toEqual({
      mode: 'balanced',
      cookie: { name: 'INGRESSCOOKIE' },
    });
  });

  it('takes every session-cookie option', () => {
    const { annotations } = parse({
      affinity: 'cookie',
      'affinity-mode': 'persistent',
      'session-cookie-name': 'route',
      'session-cookie-path': '/app',
      'session-cookie-domain': '.example.com',
      'session-cookie-samesite': 'strict',
      'session-cookie-conditional-samesite-none': 'true',
      'session-cookie-secure': 'true',
      'session-cookie-max-age': '60',
      'session-cookie-expires': '120',
      'session-cookie-change-on-failure': 'true',
    });
    expect(annotations?.sessionAffinity).toEqual({
      mode: 'persistent',
      changeOnFailure: true,
      cookie: {
        name: 'route',
        path: '/app',
        domain: '.example.com',
        sameSite: 'Strict',
        conditionalSameSiteNone: true,
        secure: true,
        maxAgeSeconds: 60,
        expiresSeconds: 120,
      },
    });
  });

  it('warns that the options do nothing without affinity', () => {
    const { annotations, problems } = parse({ 'affinity-mode': 'persistent', 'session-cookie-name': 'x' });
    expect(annotations?.sessionAffinity).toBeUndefined();
    expect(problems.map((problem) => problem.severity)).toEqual(['warning', 'warning']);
  });

  it.each([
    ['affinity', 'ip'],
    ['affinity-mode', 'sticky'],
    ['session-cookie-name', 'a=b'],
    ['session-cookie-path', 'app'],
    ['session-cookie-domain', 'a;b'],
    ['session-cookie-samesite', 'Sometimes'],
    ['session-cookie-max-age', '-1'],
    ['session-cookie-expires', '1h'],
    ['session-cookie-change-on-failure', 'yes'],
  ])('leaves the Ingress out for %s: %j', (name, value) => {
    const { annotations, problems } = parse({ affinity: 'cookie', [name]: value });
    expect(annotations).toBeUndefined();
    expect(problems).toContainEqual(
      expect.objectContaining({ severity: 'error', field: `metadata.annotations["${P}${name}"]` }),
    );
  });
});
