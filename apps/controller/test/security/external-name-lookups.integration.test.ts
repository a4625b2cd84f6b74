/**
 * Finding: ExternalName names whose DNS never answers held the controller's resolver. Lookups went
 * through getaddrinfo on libuv's threadpool, 4 threads that a lookup holds until the C library
 * gives up, and that nothing can stop: a tenant's handful of such names took all 4, and a victim's
 * new ExternalName was not resolved for minutes, nor after the tenant had left.
 *
 * Now the controller's own lookups (name-resolution's system lookup, c-ares) use no thread and stop
 * when asked, and ExternalNames looks up each namespace's names on their own: at most two at a
 * time per namespace, namespaces taking turns, each lookup failing at its deadline (ETIMEOUT, an
 * Event on the tenant's Ingress) and tried again with backoff.
 *
 * No DNS server a tenant controls can run here, so the names resolve through the lookup function
 * the controller is given. This one behaves as getaddrinfo did, which is the worst a lookup can
 * be: 4 workers shared by every lookup, a lookup of a hanging name holding its worker for good,
 * and never stopping when asked. Everything after the lookup is the real path. (The real lookup,
 * against a real DNS server that never answers, is name-resolution's
 * system-lookup.integration.test.ts.)
 */
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import type { LookupName } from '@ingresskit/name-resolution';
import { describe, expect, it } from 'vitest';
import { answerOf, eventually, ingressManifest, startBackends } from '../harness.js';
import type { DemoBackend } from '../../src/demo-backends.js';
import {
  expectTenantEvent,
  expectVictimsUnharmed,
  TENANT,
  tenantExternalNameService,
  useSecurityCase,
} from './tenant.js';

/**
 * A resolver with `workers` threads, as libuv's threadpool: names of `zone` answer at once, names
 * of `hanging` hold their worker for good; a lookup waits for a free worker first.
 */
function createThreadpoolResolver(workers: number) {
  const zone = new Map<string, string[]>();
  const hanging = new Set<string>();
  let busy = 0;
  let stuck = 0;
  const waiting: (() => void)[] = [];
  const acquire = () =>
    busy < workers ? ((busy += 1), Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve));
  // The worker goes straight to the next lookup that waits for one.
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) busy -= 1;
    else next();
  };
  const lookup: LookupName = async (hostname) => {
    await acquire();
    if (hanging.has(hostname)) {
      stuck += 1;
      return new Promise<string[]>(() => undefined);
    }
    try {
      const addresses = zone.get(hostname);
      if (addresses === undefined)
        throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
      return addresses;
    } finally {
      release();
    }
  };
  return { zone, hanging, lookup, stuck: () => stuck };
}

const resolver = createThreadpoolResolver(4);
const HANGING = Array.from({ length: 8 }, (_, i) => `hang${i}.mallory.example`);
for (const name of HANGING) resolver.hanging.add(name);

const testCase = useSecurityCase(
  'external-name-lookups',
  {},
  { externalNames: { lookup: resolver.lookup, refreshMs: 500, timeoutMs: 1_000 } },
);

/** The tenant's one Ingress, a host per hanging name. */
function hangingIngress(): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'hang', namespace: TENANT },
    spec: {
      ingressClassName: 'nginx',
      rules: HANGING.map((_, i) => ({
        host: `hang${i}.mallory.test`,
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: `hang${i}`, port: { number: 80 } } },
            },
          ],
        },
      })),
    },
  };
}

/**
 * Gives the victims (namespace default) an ExternalName `<name>.example` for `backend` and an
 * Ingress `<name>.reliability.test` to it, and expects it served within 5 s.
 */
async function serveVictimExternalName(backend: DemoBackend): Promise<void> {
  const { cluster, controller } = testCase();
  const { name, port } = backend;
  resolver.zone.set(`${name}.example`, ['127.0.0.1']);
  await cluster.server.apply([
    tenantExternalNameService(name, `${name}.example`, port, 'default'),
    ingressManifest(name, { host: `${name}.reliability.test`, service: name, port, className: 'nginx' }),
  ]);
  await eventually(
    async () => expect(await answerOf(controller, `${name}.reliability.test`)).toBe(name),
    5_000,
  );
}

describe('ExternalName names whose DNS never answers', () => {
  it("hold no lookup of another namespace's: a victim's new ExternalName is served at once, also after the tenant left", async () => {
    const { cluster, controller } = testCase();
    const partners = await startBackends('partner', 'partner-2');
    try {
      const traffic = testCase().probeVictims();
      await cluster.server.apply([
        ...HANGING.map((name, i) => tenantExternalNameService(`hang${i}`, name, 80)),
        hangingIngress(),
      ]);
      // The tenant's names are being looked up, and hang for good.
      await eventually(() => expect(resolver.stuck()).toBeGreaterThanOrEqual(2));

      // A victim's new ExternalName, while the tenant's names hang.
      await serveVictimExternalName(partners.get('partner')!);
      // The tenant is told why their hosts answer 503.
      await expectTenantEvent(testCase(), 'hang', 'does not resolve (ETIMEOUT); requests get 503');
      expect(await answerOf(controller, 'hang0.mallory.test')).toBe('503');

      // The tenant leaves; their lookups still hang. The next new name of the victim's is served too.
      const kubeConfig = cluster.server.kubeConfig();
      await kubeConfig
        .makeApiClient(NetworkingV1Api)
        .deleteNamespacedIngress({ name: 'hang', namespace: TENANT });
      const core = kubeConfig.makeApiClient(CoreV1Api);
      for (let i = 0; i < HANGING.length; i += 1)
        await core.deleteNamespacedService({ name: `hang${i}`, namespace: TENANT });
      await serveVictimExternalName(partners.get('partner-2')!);
      // The victim's first name is still looked up again, and still served.
      expect(await answerOf(controller, 'partner.reliability.test')).toBe('partner');
      await expectVictimsUnharmed(traffic, 'ExternalName names that never resolve');
    } finally {
      for (const backend of partners.values()) await backend.stop();
    }
  });
});
