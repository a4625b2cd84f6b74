/**
 * Conflicts between Ingresses are settled by route-model's assembly, not by the translation: these
 * tests run several translations through createRouteTableBuilder and check who serves what, and
 * the notes the losers get.
 */
import type { Route } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import {
  createDefaultBackendContribution,
  createDefaultBackendRoute,
  translateIngress,
  type IngressLike,
  type IngressReferences,
} from './index.js';
import { answer, assemble } from './testing/assemble.js';
import { ingress, path, secrets, tlsSecret } from './testing/fixtures.js';

function translateAll(objects: readonly IngressLike[], references: IngressReferences = secrets()) {
  return objects.map((object) => translateIngress(object, references));
}

function noteSummary(note: ReturnType<ReturnType<typeof assemble>['notes']>[number]): string {
  const source = `${note.source.namespace}/${note.source.name}`;
  switch (note.type) {
    case 'route-shadowed':
    case 'fallback-overridden':
      return `${note.type} ${note.hostname} ${source} ${note.route.id} by ${note.by.id}`;
    case 'tls-overridden':
      return `${note.type} ${note.hostname} ${source} by ${note.by.origin.namespace}/${note.by.origin.name}`;
    case 'host-owned-elsewhere':
      return `${note.type} ${note.hostname} ${source} by ${note.owner.tenant}`;
    case 'canary-unmatched':
      return `${note.type} ${note.hostname} ${source} ${note.route.id}${note.by ? ` by ${note.by.id}` : ''}`;
    case 'host-limit-exceeded':
      return `${note.type} ${note.hostname} ${source}: ${note.reason}`;
  }
}

describe('translateIngress', () => {
  describe('assembled with createRouteTableBuilder', () => {
    it('gives the same host and path to the oldest Ingress and notes the younger', () => {
      const table = assemble(
        translateAll([
          ingress(
            'young',
            { 'a.example.com': [path('/x', 'Prefix', 'other')] },
            { created: '2024-02-01T00:00:00Z' },
          ),
          ingress(
            'old',
            { 'a.example.com': [path('/x', 'Prefix', 'app')] },
            { created: '2024-01-01T00:00:00Z' },
          ),
        ]),
      );
      expect(answer(table, 'a.example.com', '/x/y')).toBe('Ingress/default/old/r0/p0');
      expect(table.notes().map(noteSummary)).toEqual([
        'route-shadowed a.example.com default/young Ingress/default/young/r0/p0 by Ingress/default/old/r0/p0',
      ]);
    });

    it('breaks creation-time ties by namespace, then name', () => {
      const table = assemble(
        translateAll([
          ingress('b', { 'a.example.com': [path('/x', 'Exact', 'other')] }),
          ingress('a', { 'a.example.com': [path('/x', 'Exact', 'app')] }, { namespace: 'zeta' }),
          ingress('a', { 'a.example.com': [path('/x', 'Exact', 'app')] }),
        ]),
      );
      expect(answer(table, 'a.example.com', '/x')).toBe('Ingress/default/a/r0/p0');
      expect(table.notes().map((note) => `${note.source.namespace}/${note.source.name}`)).toEqual([
        'default/b',
        'zeta/a',
      ]);
    });

    it('accepts Date creation timestamps as listed objects carry them', () => {
      const table = assemble(
        translateAll([
          ingress('a-new', { 'a.example.com': [path('/x', 'Exact', 'other')] }),
          ingress(
            'z-old',
            { 'a.example.com': [path('/x', 'Exact', 'app')] },
            { created: new Date('2023-01-01T00:00:00Z') },
          ),
        ]),
      );
      expect(answer(table, 'a.example.com', '/x')).toBe('Ingress/default/z-old/r0/p0');
    });

    it('lets an Ingress without a creationTimestamp lose to every dated one', () => {
      const table = assemble(
        translateAll([
          ingress('a-undated', { 'a.example.com': [path('/x', 'Exact', 'other')] }, { created: 'unknown' }),
          ingress(
            'z-dated',
            { 'a.example.com': [path('/x', 'Exact', 'app')] },
            { created: '2030-01-01T00:00:00Z' },
          ),
        ]),
      );
      expect(answer(table, 'a.example.com', '/x')).toBe('Ingress/default/z-dated/r0/p0');
    });

    it('lets an Exact path win the exact match over an older Prefix path, without a note', () => {
      const table = assemble(
        translateAll([
          ingress(
            'old',
            { 'a.example.com': [path('/x', 'Prefix', 'app')] },
            { created: '2024-01-01T00:00:00Z' },
          ),
          ingress(
            'new',
            { 'a.example.com': [path('/x', 'Exact', 'other')] },
            { created: '2024-02-01T00:00:00Z' },
          ),
        ]),
      );
      expect(answer(table, 'a.example.com', '/x')).toBe('Ingress/default/new/r0/p0');
      expect(answer(table, 'a.example.com', '/x/y')).toBe('Ingress/default/old/r0/p0');
      expect(answer(table, 'a.example.com', '/')).toBe('404');
      expect(table.notes()).toEqual([]);
    });

    it('treats Prefix /x and ImplementationSpecific /x/ as the same match', () => {
      const table = assemble(
        translateAll([
          ingress('a', {
            'a.example.com': [path('/x', 'Prefix', 'app'), path('/x/', 'ImplementationSpecific', 'other')],
          }),
        ]),
      );
      expect(table.notes().map(noteSummary)).toEqual([
        'route-shadowed a.example.com default/a Ingress/default/a/r0/p1 by Ingress/default/a/r0/p0',
      ]);
    });

    it('keeps paths of different hosts apart', () => {
      const table = assemble(
        translateAll([
          ingress('a', { 'a.example.com': [path('/x', 'Exact', 'app')] }),
          ingress('b', { 'b.example.com': [path('/x', 'Exact', 'other')] }),
        ]),
      );
      expect(table.notes()).toEqual([]);
      expect(table.table().virtualHosts.map((host) => host.hostname)).toEqual([
        'a.example.com',
        'b.example.com',
      ]);
      expect(answer(table, 'b.example.com', '/x')).toBe('Ingress/default/b/r0/p0');
    });

    it('sends what no route matches to the controller default backend, or 404 without one', () => {
      const translations = translateAll([ingress('a', { 'a.example.com': [path('/x', 'Exact', 'app')] })]);
      const withDefault = assemble(translations, {
        defaultFallback: createDefaultBackendRoute({ namespace: 'system', name: 'fallback', port: 8080 }),
      });
      expect(answer(withDefault, 'a.example.com', '/y')).toBe('fallback Controller/default-backend');
      // Without the controller's catch-all contribution, a host no Ingress names has no virtual host.
      expect(answer(withDefault, 'other.example.com', '/')).toBe('404');
      withDefault.setContribution(createDefaultBackendContribution());
      withDefault.commit();
      expect(answer(withDefault, 'other.example.com', '/')).toBe('fallback Controller/default-backend');
      expect(withDefault.backendReferences()).toEqual(
        new Map([
          ['default/app:80', 1],
          ['system/fallback:8080', 1],
        ]),
      );
      const without = assemble(translations, { defaultFallback: createDefaultBackendRoute(undefined) });
      const fallback = without.virtualHost('a.example.com')?.fallbackRoute;
      expect(fallback?.action).toEqual({ type: 'respond', statusCode: 404 });
    });

    it('uses spec.defaultBackend of the oldest Ingress for the catch-all, and each Ingress its own for its hosts', () => {
      const table = assemble(
        translateAll([
          ingress(
            'a',
            { 'a.example.com': [path('/x', 'Exact', 'app')] },
            { defaultBackend: { service: 'other', port: 80 } },
          ),
          ingress(
            'b',
            { 'b.example.com': [path('/x', 'Exact', 'app')] },
            { defaultBackend: { service: 'app', port: 'http' }, created: '2025-01-01T00:00:00Z' },
          ),
        ]),
      );
      table.setContribution(createDefaultBackendContribution());
      table.commit();
      expect(answer(table, 'elsewhere.example.org', '/')).toBe('fallback Ingress/default/a/default-backend');
      expect(answer(table, 'a.example.com', '/y')).toBe('fallback Ingress/default/a/default-backend');
      expect(answer(table, 'b.example.com', '/y')).toBe('fallback Ingress/default/b/default-backend');
      expect(table.notes().map(noteSummary)).toEqual([
        'fallback-overridden * default/b Ingress/default/b/default-backend by Ingress/default/a/default-backend',
      ]);
    });

    it('binds a TLS host to the certificate of the oldest Ingress and notes the others', () => {
      const references = secrets(tlsSecret('one', 'secure'), tlsSecret('two', 'other'));
      const [older, younger] = translateAll(
        [
          ingress(
            'a',
            { 'secure.example.com': [path('/a', 'Exact', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'one' }] },
          ),
          ingress(
            'b',
            { 'secure.example.com': [path('/b', 'Exact', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'two' }], created: '2025-01-01T00:00:00Z' },
          ),
        ],
        references,
      );
      const table = assemble([younger!, older!]);
      expect(table.table().tls).toEqual([
        expect.objectContaining({
          hostname: 'secure.example.com',
          certificate: older!.contribution!.tls[0]!.certificate.id,
        }),
      ]);
      expect(table.table().certificates.map((certificate) => certificate.id)).toEqual([
        older!.contribution!.tls[0]!.certificate.id,
      ]);
      expect(table.notes().map(noteSummary)).toEqual([
        'tls-overridden secure.example.com default/b by default/a',
      ]);
    });

    it('serves each of several Ingresses its own paths on a shared host, ranked by specificity', () => {
      const table = assemble(
        translateAll([
          ingress('shop', { 'a.example.com': [path('/', 'Prefix', 'web'), path('/api', 'Prefix', 'api')] }),
          ingress(
            'blog',
            { 'a.example.com': [path('/api/blog', 'Prefix', 'blog')] },
            { created: '2025-01-01T00:00:00Z' },
          ),
        ]),
      );
      const route = (requestPath: string): Route | undefined => {
        const id = answer(table, 'a.example.com', requestPath);
        return table.virtualHost('a.example.com')?.routes.find((candidate) => candidate.id === id);
      };
      expect(route('/api/blog/1')?.origin.name).toBe('blog');
      expect(route('/api/users')?.id).toBe('Ingress/default/shop/r0/p1');
      expect(route('/index.html')?.id).toBe('Ingress/default/shop/r0/p0');
    });
  });
});
