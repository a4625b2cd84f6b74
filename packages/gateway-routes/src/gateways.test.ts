import { describe, expect, it } from 'vitest';
import {
  markGatewayProgrammed,
  translateGatewayApi,
  type GatewayApiObjects,
  type GatewayLike,
  type ListenerLike,
} from './index.js';
import {
  answer,
  assemble,
  gatewayStatus,
  listenerStatus,
  routeConditions,
  summarize,
} from './testing/assemble.js';
import {
  config,
  gateway,
  httpListener,
  httpRoute,
  httpsListener,
  parent,
  referenceGrant,
  service,
  tlsSecret,
} from './testing/fixtures.js';

function translate(gateways: GatewayLike[], objects: Partial<GatewayApiObjects> = {}) {
  return translateGatewayApi(
    {
      gateways,
      httpRoutes: objects.httpRoutes ?? [],
      services: [service('app'), ...(objects.services ?? [])],
      secrets: objects.secrets ?? [],
      referenceGrants: objects.referenceGrants ?? [],
    },
    config,
  );
}

function listenerConditions(
  listeners: ListenerLike[],
  objects: Partial<GatewayApiObjects> = {},
  name?: string,
) {
  const result = translate([gateway('gw', listeners)], objects);
  return summarize(listenerStatus(result, name ?? listeners[0]!.name!).conditions);
}

describe('evaluateGateways through translateGatewayApi', () => {
  describe('listeners', () => {
    it('accepts an HTTP listener on a served port and lists HTTPRoute as its supported kind', () => {
      const result = translate([gateway('gw', [httpListener()])]);
      expect(summarize(gatewayStatus(result).conditions)).toEqual({
        Accepted: 'True Accepted',
        Programmed: 'False Pending',
      });
      expect(listenerStatus(result, 'http')).toEqual({
        name: 'http',
        supportedKinds: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }],
        attachedRoutes: 0,
        conditions: [
          {
            type: 'Accepted',
            status: 'True',
            reason: 'Accepted',
            message: 'the listener is valid',
            observedGeneration: 1,
          },
          {
            type: 'Conflicted',
            status: 'False',
            reason: 'NoConflicts',
            message: 'no conflicts',
            observedGeneration: 1,
          },
          {
            type: 'ResolvedRefs',
            status: 'True',
            reason: 'ResolvedRefs',
            message: 'all references are resolved',
            observedGeneration: 1,
          },
          {
            type: 'Programmed',
            status: 'False',
            reason: 'Pending',
            message: 'waiting for the data plane',
            observedGeneration: 1,
          },
        ],
      });
    });

    it('refuses a port the data plane does not serve with PortUnavailable', () => {
      expect(listenerConditions([httpListener('alt', { port: 8080 })])).toMatchObject({
        Accepted: 'False PortUnavailable',
        Programmed: 'False Invalid',
      });
    });

    it('refuses HTTP on a port served as HTTPS', () => {
      expect(listenerConditions([httpListener('odd', { port: 443 })]).Accepted).toBe('False PortUnavailable');
    });

    it('refuses protocols other than HTTP and HTTPS with UnsupportedProtocol and no supported kinds', () => {
      const result = translate([gateway('gw', [httpListener('tcp', { protocol: 'TCP', port: 80 })])]);
      expect(summarize(listenerStatus(result, 'tcp').conditions).Accepted).toBe('False UnsupportedProtocol');
      expect(listenerStatus(result, 'tcp').supportedKinds).toEqual([]);
    });

    it('maps Gateway ports to the data-plane listeners the caller names', () => {
      const result = translateGatewayApi(
        {
          gateways: [gateway('gw', [httpListener('http', { port: 8080 })])],
          httpRoutes: [httpRoute('web', {})],
          services: [service('app')],
        },
        { ...config, ports: [{ port: 8080, protocol: 'HTTP', listener: 'plain' }] },
      );
      expect(result.routes[0]!.hosts[0]!.routes[0]!.listeners).toEqual(['plain']);
    });

    it('reports InvalidRouteKinds for kinds it cannot serve and keeps the ones it can', () => {
      const result = translate([
        gateway('gw', [
          httpListener('http', { allowedRoutes: { kinds: [{ kind: 'HTTPRoute' }, { kind: 'TCPRoute' }] } }),
        ]),
      ]);
      expect(summarize(listenerStatus(result, 'http').conditions).ResolvedRefs).toBe(
        'False InvalidRouteKinds',
      );
      expect(listenerStatus(result, 'http').supportedKinds).toEqual([
        { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' },
      ]);
    });

    it('does not accept a Gateway without listeners', () => {
      expect(summarize(gatewayStatus(translate([gateway('gw', [])])).conditions)).toEqual({
        Accepted: 'False ListenersNotValid',
        Programmed: 'False Invalid',
      });
    });

    it('refuses a Gateway with a parametersRef with InvalidParameters and serves none of its listeners', () => {
      const withParameters = {
        ...gateway('gw', [httpListener('http', { hostname: 'shop.example.com' })]),
      };
      const refused = {
        ...withParameters,
        spec: {
          ...withParameters.spec,
          infrastructure: { parametersRef: { group: 'example.io', kind: 'Params', name: 'p' } },
        },
      } as GatewayLike;
      const result = translate([refused], {
        httpRoutes: [httpRoute('web', { parentRefs: [parent('gw')] })],
      });
      expect(summarize(gatewayStatus(result).conditions)).toEqual({
        Accepted: 'False InvalidParameters',
        Programmed: 'False Invalid',
      });
      expect(gatewayStatus(result).conditions[0]!.message).toContain('example.io/Params p');
      expect(summarize(listenerStatus(result, 'http').conditions).Programmed).toBe('False Invalid');
      expect(routeConditions(result, 'web').Accepted).toBe('False NotAllowedByListeners');
      expect(answer(assemble(result), 'shop.example.com', '/')).toBe('404');
      expect(result.problems.map((problem) => problem.field)).toContain('spec.infrastructure.parametersRef');
    });

    it('leaves a hostname of a refused Gateway to a newer Gateway', () => {
      const older = gateway('older', [httpListener('http', { hostname: 'shop.example.com' })], {
        created: '2025-01-01T00:00:00Z',
      });
      const refused = {
        ...older,
        spec: { ...older.spec, infrastructure: { parametersRef: { group: 'g', kind: 'K', name: 'n' } } },
      } as GatewayLike;
      const newer = gateway('newer', [httpListener('http', { hostname: 'shop.example.com' })], {
        created: '2026-01-01T00:00:00Z',
      });
      const result = translate([refused, newer], {
        httpRoutes: [httpRoute('b', { parentRefs: [parent('newer')] })],
      });
      expect(summarize(listenerStatus(result, 'http', 'newer').conditions).Conflicted).toBe(
        'False NoConflicts',
      );
      expect(answer(assemble(result), 'shop.example.com', '/')).toBe('b/r0/m0');
    });

    it('ignores Gateways of classes that are not ours', () => {
      expect(translate([gateway('gw', [httpListener()], { className: 'other' })]).statuses.gateways).toEqual(
        [],
      );
    });
  });

  describe('listener conflicts', () => {
    it('marks every listener sharing a port and hostname HostnameConflict, and none wins', () => {
      const result = translate(
        [
          gateway('gw', [
            httpListener('a', { hostname: 'x.example.com' }),
            httpListener('b', { hostname: 'x.example.com' }),
            httpListener('c'),
          ]),
        ],
        { httpRoutes: [httpRoute('web', { parentRefs: [parent('gw', { sectionName: 'a' })] })] },
      );
      for (const name of ['a', 'b']) {
        expect(summarize(listenerStatus(result, name).conditions)).toMatchObject({
          Conflicted: 'True HostnameConflict',
          Programmed: 'False Invalid',
        });
      }
      expect(summarize(listenerStatus(result, 'c').conditions).Conflicted).toBe('False NoConflicts');
      expect(summarize(gatewayStatus(result).conditions).Accepted).toBe('True ListenersNotValid');
      expect(routeConditions(result, 'web').Accepted).toBe('False NotAllowedByListeners');
      expect(answer(assemble(result), 'x.example.com', '/')).toBe('404');
    });

    it('marks listeners on one port with different protocols ProtocolConflict', () => {
      const result = translate(
        [gateway('gw', [httpListener('plain', { port: 443 }), httpsListener('tls', ['cert'])])],
        { secrets: [tlsSecret('cert')] },
      );
      expect(summarize(listenerStatus(result, 'plain').conditions).Conflicted).toBe('True ProtocolConflict');
      expect(summarize(listenerStatus(result, 'tls').conditions).Conflicted).toBe('True ProtocolConflict');
      expect(summarize(gatewayStatus(result).conditions).Accepted).toBe('False ListenersNotValid');
    });

    it('gives a hostname on a shared port to the oldest Gateway and marks the newer one conflicted', () => {
      const older = gateway('older', [httpListener('http', { hostname: 'shop.example.com' })], {
        created: '2025-01-01T00:00:00Z',
      });
      const newer = gateway(
        'newer',
        [
          httpListener('http', { hostname: 'shop.example.com' }),
          httpListener('own', { hostname: 'new.example.com' }),
        ],
        {
          created: '2026-01-01T00:00:00Z',
        },
      );
      const result = translate([newer, older], {
        httpRoutes: [
          httpRoute('a', { parentRefs: [parent('older')] }),
          httpRoute('b', { parentRefs: [parent('newer')] }),
        ],
      });
      expect(summarize(listenerStatus(result, 'http', 'older').conditions).Conflicted).toBe(
        'False NoConflicts',
      );
      expect(summarize(listenerStatus(result, 'http', 'newer').conditions).Conflicted).toBe(
        'True HostnameConflict',
      );
      const table = assemble(result);
      expect(answer(table, 'shop.example.com', '/')).toBe('a/r0/m0');
      expect(answer(table, 'new.example.com', '/')).toBe('b/r0/m0');
    });

    it('merges listeners of several Gateways with distinct hostnames onto one port', () => {
      const result = translate(
        [
          gateway('one', [httpListener('http', { hostname: 'one.example.com' })]),
          gateway('two', [httpListener('http', { hostname: 'two.example.com' })]),
        ],
        {
          httpRoutes: [
            httpRoute('a', { parentRefs: [parent('one')] }),
            httpRoute('b', { parentRefs: [parent('two')] }),
          ],
        },
      );
      const table = assemble(result);
      expect(answer(table, 'one.example.com', '/')).toBe('a/r0/m0');
      expect(answer(table, 'two.example.com', '/')).toBe('b/r0/m0');
    });
  });

  describe('GatewayInvalidTLSConfiguration', () => {
    it('reports InvalidCertificateRef for a missing Secret', () => {
      expect(listenerConditions([httpsListener('https', ['missing'])])).toMatchObject({
        Accepted: 'True Accepted',
        ResolvedRefs: 'False InvalidCertificateRef',
        Programmed: 'False Invalid',
      });
    });

    it('reports InvalidCertificateRef for a Secret without a usable certificate', () => {
      const broken = {
        metadata: { name: 'broken', namespace: 'infra' },
        type: 'kubernetes.io/tls',
        stringData: { 'tls.crt': 'nope', 'tls.key': 'nope' },
      };
      expect(
        listenerConditions([httpsListener('https', ['broken'])], { secrets: [broken] }).ResolvedRefs,
      ).toBe('False InvalidCertificateRef');
      const opaque = { ...tlsSecret('opaque'), type: 'Opaque' };
      expect(
        listenerConditions([httpsListener('https', ['opaque'])], { secrets: [opaque] }).ResolvedRefs,
      ).toBe('False InvalidCertificateRef');
    });

    it('reports InvalidCertificateRef for a reference that is not a core Secret', () => {
      expect(
        listenerConditions([httpsListener('https', [{ group: 'example.com', kind: 'Vault', name: 'cert' }])])
          .ResolvedRefs,
      ).toBe('False InvalidCertificateRef');
    });

    it('reports RefNotPermitted for a Secret in another namespace without a ReferenceGrant', () => {
      const ref = { kind: 'Secret', name: 'cert', namespace: 'certs' };
      const secrets = [tlsSecret('cert', 'secure', 'certs')];
      expect(listenerConditions([httpsListener('https', [ref])], { secrets }).ResolvedRefs).toBe(
        'False RefNotPermitted',
      );
      const grant = referenceGrant(
        'allow',
        'certs',
        { kind: 'Gateway', namespace: 'infra' },
        { kind: 'Secret', name: 'cert' },
      );
      expect(
        listenerConditions([httpsListener('https', [ref])], { secrets, referenceGrants: [grant] }),
      ).toMatchObject({
        ResolvedRefs: 'True ResolvedRefs',
        Programmed: 'False Pending',
      });
    });

    it('refuses TLS Passthrough, which this data plane cannot do', () => {
      const listener = httpsListener('https', [], { tls: { mode: 'Passthrough' } });
      expect(listenerConditions([listener]).Accepted).toBe('False UnsupportedValue');
    });
  });

  describe('markGatewayProgrammed', () => {
    it('settles Pending Programmed conditions and leaves Invalid ones', () => {
      const result = translate([gateway('gw', [httpListener('ok'), httpListener('bad', { port: 9999 })])]);
      const served = markGatewayProgrammed(gatewayStatus(result), { programmed: true });
      expect(summarize(served.conditions).Programmed).toBe('True Programmed');
      expect(summarize(served.listeners[0]!.conditions).Programmed).toBe('True Programmed');
      expect(summarize(served.listeners[1]!.conditions).Programmed).toBe('False Invalid');
      const failed = markGatewayProgrammed(gatewayStatus(result), {
        programmed: false,
        reason: 'NoResources',
        message: 'nginx refused',
      });
      expect(summarize(failed.conditions).Programmed).toBe('False NoResources');
      expect(summarize(gatewayStatus(result).conditions).Programmed).toBe('False Pending');
    });

    it('keeps a Gateway without a valid listener Programmed False Invalid', () => {
      const result = translate([gateway('gw', [httpListener('bad', { port: 9999 })])]);
      expect(
        summarize(markGatewayProgrammed(gatewayStatus(result), { programmed: true }).conditions),
      ).toEqual({
        Accepted: 'False ListenersNotValid',
        Programmed: 'False Invalid',
      });
    });
  });
});
