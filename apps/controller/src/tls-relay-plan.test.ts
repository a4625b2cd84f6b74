import { describe, expect, it } from 'vitest';
import { compileBackendTlsRelay, relaySocketName } from '@ingresskit/nginx-template';
import type { Backend, BackendTlsPolicy, Route, RouteTableDelta, VirtualHost } from '@ingresskit/route-model';
import { listRelayUses, RelayPlan } from './tls-relay-plan.js';

const TLS: BackendTlsPolicy = {
  caCertificatesPem: '',
  verify: false,
  depth: 1,
  protocols: ['TLSv1.2'],
  ciphers: 'DEFAULT',
  sendServerName: false,
};

function route(id: string, policy: Route['policy'], action?: Route['action']): Route {
  return {
    id,
    origin: { kind: 'Ingress', namespace: 'default', name: id, createdAt: 0, index: [0] },
    match: { path: { type: 'PathPrefix', value: `/${id}` } },
    action: action ?? { type: 'forward', backends: [{ backend: id, weight: 1 }] },
    policy,
  };
}

function host(hostname: string, routes: Route[], fallbackRoute?: Route): VirtualHost {
  return { hostname, hostnameMatch: 'exact', routes, ...(fallbackRoute ? { fallbackRoute } : {}) };
}

function backend(id: string, ...addresses: string[]): Backend {
  return { id, endpoints: addresses.map((address) => ({ address, port: 443 })) };
}

function delta(
  parts: Partial<{ hosts: VirtualHost[]; removeHosts: string[]; backends: Backend[] }>,
): RouteTableDelta {
  return {
    virtualHosts: { upsert: parts.hosts ?? [], remove: parts.removeHosts ?? [] },
    tls: { upsert: [], remove: [] },
    certificates: { upsert: [], remove: [] },
    backends: { upsert: parts.backends ?? [], remove: [] },
  };
}

const relayed = route('relayed', { backendProtocol: 'HTTPS', backendTls: TLS });
const relayId = (compileBackendTlsRelay(relayed, 'a.test') as { id: string }).id;

describe('listRelayUses', () => {
  it('lists the relay of each route with a backend TLS policy, with the backends it forwards to', () => {
    const split = route(
      'split',
      { backendProtocol: 'HTTPS', backendTls: TLS, noEndpointsBackend: 'spare' },
      {
        type: 'forward',
        backends: [
          { backend: 'one', weight: 1 },
          { statusCode: 503, weight: 1 },
        ],
        canary: { weight: 1, weightTotal: 10, backends: [{ backend: 'canary', weight: 1 }] },
      },
    );
    const plain = route('plain', { backendProtocol: 'HTTPS' });
    const uses = listRelayUses(host('a.test', [split, plain], relayed));
    expect(uses.map((use) => use.backends)).toEqual([['one', 'canary', 'spare'], ['relayed']]);
  });

  it('leaves out closed policies, which answer 503 without a relay', () => {
    const closed = route('closed', { backendProtocol: 'HTTPS', backendTls: { ...TLS, verify: true } });
    expect(listRelayUses(host('a.test', [closed]))).toEqual([]);
  });
});

describe('RelayPlan', () => {
  it('needs a socket per relay and endpoint, following host and backend changes', () => {
    const plan = new RelayPlan();
    plan.stage(delta({ backends: [backend('relayed', '10.0.0.1', 'fd00::1', 'not an address')] }));
    expect(plan.sockets().size).toBe(0);
    plan.stage(delta({ hosts: [host('a.test', [relayed])] }));
    expect([...plan.sockets().keys()]).toEqual([
      relaySocketName(relayId, '10.0.0.1', 443),
      relaySocketName(relayId, 'fd00::1', 443),
    ]);
    expect(plan.sockets().get(relaySocketName(relayId, '10.0.0.1', 443))).toMatchObject({
      address: '10.0.0.1',
      port: 443,
      relay: { id: relayId },
    });
    plan.stage(delta({ backends: [backend('relayed', '10.0.0.2')] }));
    expect([...plan.sockets().keys()]).toEqual([relaySocketName(relayId, '10.0.0.2', 443)]);
    plan.stage(delta({ removeHosts: ['a.test'] }));
    expect(plan.sockets().size).toBe(0);
  });
});
