import { describe, expect, it } from 'vitest';
import {
  parseRouteId,
  parseServiceBackendId,
  parseSourceKey,
  routeIdOf,
  routeIdPrefixOf,
  serviceBackendIdOf,
  sourceKey,
} from './ids.js';

describe('serviceBackendIdOf', () => {
  it('reads back what it wrote when the port is a number, a name or the cluster IP', () => {
    for (const ref of [
      { namespace: 'shop', name: 'web', port: 8080 },
      { namespace: 'shop', name: 'web', port: 'http' },
      { namespace: 'shop', name: 'web', port: 80, viaClusterIp: true as const },
    ]) {
      expect(parseServiceBackendId(serviceBackendIdOf(ref))).toEqual(ref);
    }
    expect(serviceBackendIdOf({ namespace: 'shop', name: 'web', port: 80, viaClusterIp: true })).toBe(
      'shop/web:80@cluster-ip',
    );
  });
});

describe('parseServiceBackendId', () => {
  it('answers undefined for ids that are not a Service port', () => {
    for (const id of ['', 'web:80', 'shop/web', 'a/b/c:80', 'shop/web:80@other', 'shop/web:80:81']) {
      expect(parseServiceBackendId(id)).toBeUndefined();
    }
  });
});

describe('parseSourceKey', () => {
  it('reads back a source key, the name being everything after the namespace', () => {
    const source = { kind: 'HTTPRoute', namespace: 'shop', name: 'web' };
    expect(parseSourceKey(sourceKey(source))).toEqual(source);
  });

  it('answers undefined for keys without a namespace or a name', () => {
    for (const key of ['Controller//default-backend', 'Ingress/shop', 'Ingress/shop/', '/shop/web', 'x']) {
      expect(parseSourceKey(key)).toBeUndefined();
    }
  });
});

describe('parseRouteId', () => {
  it('gives the source and the place of a route id', () => {
    const source = { kind: 'Ingress', namespace: 'shop', name: 'web' };
    const id = routeIdOf(source, 'r0/p1');
    expect(id).toBe('Ingress/shop/web/r0/p1');
    expect(id.startsWith(routeIdPrefixOf(sourceKey(source)))).toBe(true);
    expect(parseRouteId(id)).toEqual({ source, sourceKey: 'Ingress/shop/web', place: 'r0/p1' });
  });

  it('answers undefined for the ids of routes of no namespaced source', () => {
    expect(parseRouteId('Controller/default-backend')).toBeUndefined();
    expect(parseRouteId('Ingress/shop/web')).toBeUndefined();
  });
});
