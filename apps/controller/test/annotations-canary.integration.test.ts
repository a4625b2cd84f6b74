/**
 * ingress-nginx's canary annotations end to end (local API server, the controller, nginx, real
 * HTTP): a canary Ingress adds to the main Ingress of the same host and path, by header (always /
 * never, an exact value, a pattern), then cookie, then weight out of canary-weight-total; a canary
 * with no main Ingress of its namespace takes nothing; a changed weight is served without reload.
 */
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { eventually, ingressManifest, serviceManifests } from './harness.js';

/** The main Ingress of `host` (service `main`) and its canary (service `canary`) with `annotations`. */
function pair(host: string, annotations: Record<string, string>, namespace = 'default') {
  return [
    ingressManifest(`${host}-main`, { host, service: 'main', className: 'nginx' }),
    canary(`${host}-canary`, host, annotations, namespace),
  ];
}

function canary(name: string, host: string, annotations: Record<string, string>, namespace = 'default') {
  return annotatedIngress(host, 'canary', { [`${A}canary`]: 'true', ...annotations }, { name, namespace });
}

const testCase = useAnnotationsCase({
  config: { podName: 'canary' },
  backends: ['main', 'canary'],
  readyHost: 'switch.test',
  objects: ({ backends }) => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } },
    ...serviceManifests('main', [backends.get('main')!]),
    ...serviceManifests('canary', [backends.get('canary')!]),
    ...serviceManifests('canary', [backends.get('canary')!], 'other'),
    ...pair('switch.test', { [`${A}canary-by-header`]: 'X-Canary', [`${A}canary-by-cookie`]: 'beta' }),
    ...pair('value.test', {
      [`${A}canary-by-header`]: 'X-Env',
      [`${A}canary-by-header-value`]: 'staging',
      [`${A}canary-by-cookie`]: 'beta',
    }),
    ...pair('pattern.test', {
      [`${A}canary-by-header`]: 'X-Env',
      [`${A}canary-by-header-pattern`]: '^(qa|dev)$',
    }),
    ...pair('weight.test', { [`${A}canary-weight`]: '30' }),
    ...pair('total.test', { [`${A}canary-weight`]: '300', [`${A}canary-weight-total`]: '1000' }),
    ...pair('changing.test', { [`${A}canary-weight`]: '0' }),
    canary('orphan-canary', 'orphan.test', { [`${A}canary-weight`]: '100' }),
    ingressManifest('elsewhere-main', { host: 'elsewhere.test', service: 'main', className: 'nginx' }),
    canary('elsewhere-canary', 'elsewhere.test', { [`${A}canary-weight`]: '100' }, 'other'),
  ],
});

/** Which backend answered a request with these headers, or the status. */
function answer(host: string, headers: Record<string, string> = {}): Promise<string> {
  return testCase().answer(host, { headers });
}

/** The share of `count` requests the canary answered. */
async function canaryShare(host: string, count: number): Promise<number> {
  let canaries = 0;
  for (let index = 0; index < count; index += 1) if ((await answer(host)) === 'canary') canaries += 1;
  return canaries / count;
}

describe('canary-by-header and canary-by-cookie', () => {
  it('sends "always" to the canary and "never" to the main backend, before the cookie', async () => {
    expect(await answer('switch.test', { 'x-canary': 'always' })).toBe('canary');
    expect(await answer('switch.test', { 'x-canary': 'never', cookie: 'beta=always' })).toBe('main');
    expect(await answer('switch.test')).toBe('main');
  });

  it('lets another header value fall through to the cookie', async () => {
    expect(await answer('switch.test', { 'x-canary': 'maybe', cookie: 'a=1; beta=always' })).toBe('canary');
    expect(await answer('switch.test', { 'x-canary': 'maybe', cookie: 'beta=never' })).toBe('main');
    expect(await answer('switch.test', { cookie: 'beta=other' })).toBe('main');
  });

  it('with canary-by-header-value, takes exactly that value and lets others fall through', async () => {
    expect(await answer('value.test', { 'x-env': 'staging' })).toBe('canary');
    expect(await answer('value.test', { 'x-env': 'always' })).toBe('main');
    expect(await answer('value.test', { 'x-env': 'prod', cookie: 'beta=always' })).toBe('canary');
  });

  it('with canary-by-header-pattern, takes the values the pattern matches', async () => {
    expect(await answer('pattern.test', { 'x-env': 'qa' })).toBe('canary');
    expect(await answer('pattern.test', { 'x-env': 'dev' })).toBe('canary');
    expect(await answer('pattern.test', { 'x-env': 'qa2' })).toBe('main');
  });
});

describe('canary-weight and canary-weight-total', () => {
  it('sends canary-weight percent of 2,000 requests to the canary, within 5 points', async () => {
    const share = await canaryShare('weight.test', 2000);
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.35);
  });

  it('counts the weight out of canary-weight-total', async () => {
    const share = await canaryShare('total.test', 2000);
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.35);
  });
});

describe('a canary Ingress', () => {
  it('serves nothing without a main Ingress of the same host and path', async () => {
    expect(await answer('orphan.test')).toBe('404');
  });

  it('takes nothing from a main Ingress of another namespace', async () => {
    expect(await canaryShare('elsewhere.test', 20)).toBe(0);
  });

  it('changes its weight without a reload', async () => {
    const { controller, server } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    expect(await canaryShare('changing.test', 20)).toBe(0);
    await server.apply(canary('changing.test-canary', 'changing.test', { [`${A}canary-weight`]: '100' }));
    await eventually(async () => expect(await answer('changing.test')).toBe('canary'));
    expect(await canaryShare('changing.test', 20)).toBe(1);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });
});
