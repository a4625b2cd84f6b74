import { describe, expect, it } from 'vitest';
import { backendKey, compileBackendTlsRelay, hostKey, relaySocketName } from '@ingresskit/nginx-template';
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
  parts: Partial<{
    hosts: VirtualHost[];
    removeHosts: string[];
    backends: Backend[];
    removeBackends: string[];
  }>,
): RouteTableDelta {
  return {
    virtualHosts: { upsert: parts.hosts ?? [], remove: parts.removeHosts ?? [] },
    tls: { upsert: [], remove: [] },
    certificates: { upsert: [], remove: [] },
    backends: { upsert: parts.backends ?? [], remove: parts.removeBackends ?? [] },
  };
}

const nothingRefused = () => false;

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

  it('keeps what nginx has until it has the staged changes, and then only what it names', () => {
    const plan = new RelayPlan();
    plan.stage(delta({ hosts: [host('a.test', [relayed])], backends: [backend('relayed', '10.0.0.1')] }));
    plan.commit(nothingRefused);
    plan.stage(delta({ backends: [backend('relayed', '10.0.0.2')] }));
    // Before the push both: nginx names the old endpoint until it has the new one.
    expect([...plan.sockets().keys()]).toEqual([
      relaySocketName(relayId, '10.0.0.1', 443),
      relaySocketName(relayId, '10.0.0.2', 443),
    ]);
    plan.commit(nothingRefused);
    expect([...plan.sockets().keys()]).toEqual([relaySocketName(relayId, '10.0.0.2', 443)]);
  });

  it('has the sockets of the hosts nginx keeps towards the new endpoints an urgent push brings', () => {
    const plan = new RelayPlan();
    const other = route(
      'other',
      { backendProtocol: 'HTTPS', backendTls: { ...TLS, depth: 2 } },
      relayed.action,
    );
    const otherId = (compileBackendTlsRelay(other, 'a.test') as { id: string }).id;
    plan.stage(delta({ hosts: [host('a.test', [relayed])], backends: [backend('relayed', '10.0.0.1')] }));
    plan.commit(nothingRefused);
    // The host changes its relay and the endpoint moves; only the endpoint is urgent.
    plan.stage(delta({ hosts: [host('a.test', [other])], backends: [backend('relayed', '10.0.0.2')] }));
    expect(plan.sockets()).toHaveProperty('size', 4);
    plan.commitUrgent();
    // nginx has the old host with the new endpoint; the new host waits.
    expect([...plan.sockets().keys()].sort()).toEqual(
      [relaySocketName(relayId, '10.0.0.2', 443), relaySocketName(otherId, '10.0.0.2', 443)].sort(),
    );
    plan.commit(nothingRefused);
    expect([...plan.sockets().keys()]).toEqual([relaySocketName(otherId, '10.0.0.2', 443)]);
  });

  it('keeps what nginx has of a host or backend whose entry nginx refused', () => {
    const plan = new RelayPlan();
    plan.stage(delta({ hosts: [host('a.test', [relayed])], backends: [backend('relayed', '10.0.0.1')] }));
    plan.commit(nothingRefused);
    plan.stage(delta({ removeHosts: ['a.test'], removeBackends: ['relayed'] }));
    plan.commit((key) => key === hostKey('a.test') || key === backendKey('relayed'));
    expect([...plan.sockets().keys()]).toEqual([relaySocketName(relayId, '10.0.0.1', 443)]);
    plan.stage(delta({ removeHosts: ['a.test'] }));
    plan.commit(nothingRefused);
    expect(plan.sockets().size).toBe(0);
  });
});
