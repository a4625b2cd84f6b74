/**
 * The set-up of the security suite (docs/security.md). The reliability cluster's steady Ingresses
 * are the victims: namespace `default`, `a.reliability.test` and `b.reliability.test/api` over
 * HTTP, `s.reliability.test` over HTTPS. `mallory` is the namespace of the hostile tenant, who can
 * write anything there and nothing elsewhere, and who runs a backend of their own (`evil`). Each
 * case applies the tenant's objects while a probe requests the victims' routes, and ends with the
 * probe's report, which must show no failed request.
 *
 * The test backends run on 127.0.0.1, so these controllers allow local backend addresses, as the
 * demo does; the controller's own ports stay refused even then. The production policy (no loopback
 * at all) is checked by ../backend-addresses.integration.test.ts.
 */
import { X509Certificate } from 'node:crypto';
import type { LookupName } from '@ingresskit/name-resolution';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Controller, ControllerDependencies } from '../../src/controller.js';
import type { ControllerConfig } from '../../src/config.js';
import type { DemoBackend } from '../../src/demo-backends.js';
import { startDemoBackend } from '../../src/demo-backends.js';
import {
  endpointSliceManifest,
  eventually,
  ingressManifest,
  listEvents,
  presentedCertificate,
  regexIngressManifest,
  serviceManifests,
  startBackends,
  startController,
} from '../harness.js';
import { startCluster, startSteadyTraffic, type ReliabilityCluster } from '../reliability/cluster.js';
import { formatTrafficReport, type Route, type Traffic } from '../reliability/traffic.js';

/** The hostile tenant's namespace. */
export const TENANT = 'mallory';

/** A running case: the cluster, the tenant's backend and one controller. */
export interface SecurityCase {
  cluster: ReliabilityCluster;
  /** The running controller; a case may replace it. */
  controller: Controller;
  /** The tenant's own backend, Service `evil` in {@link TENANT}. */
  evil: DemoBackend;
  /** Starts the probe of the victims' routes, and of `more` routes a case gave the victims. */
  probeVictims(more?: readonly Route[]): Traffic;
  stop(): Promise<void>;
}

/** Starts the cluster, the tenant's namespace and backend, and a controller named `podName`. */
export async function startSecurityCase(
  podName: string,
  overrides: Partial<ControllerConfig> = {},
  deps: Pick<ControllerDependencies, 'externalNames'> = {},
): Promise<SecurityCase> {
  const cluster = await startCluster();
  const evil = (await startBackends('evil')).get('evil')!;
  await cluster.server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TENANT } },
    ...serviceManifests('evil', [evil], TENANT),
  ]);
  const testCase: SecurityCase = {
    cluster,
    controller: await startController(cluster.server, { podName, ...overrides }, deps),
    evil,
    // The controller of the moment: a case may replace it (a restart).
    probeVictims: (more = []) =>
      startSteadyTraffic(
        { ...cluster, steadyRoutes: [...cluster.steadyRoutes, ...more] },
        testCase.controller,
      ),
    stop: async () => {
      await testCase.controller.stop();
      await evil.stop();
      await cluster.stop();
    },
  };
  return testCase;
}

/**
 * Starts a case before the tests of the calling file and stops it after them; call the returned
 * function in a test to get it.
 */
export function useSecurityCase(...args: Parameters<typeof startSecurityCase>): () => SecurityCase {
  let testCase: SecurityCase | undefined;
  beforeAll(async () => {
    testCase = await startSecurityCase(...args);
  });
  afterAll(async () => {
    await testCase?.stop();
  });
  return () => {
    if (testCase === undefined) throw new Error('the security case did not start');
    return testCase;
  };
}

/** An ExternalName Service of the tenant's (or of `namespace`), aimed at `externalName:port`. */
export function tenantExternalNameService(
  name: string,
  externalName: string,
  port: number,
  namespace = TENANT,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { type: 'ExternalName', externalName, ports: [{ name: 'http', port }] },
  };
}

/**
 * A lookup of ExternalName names in `zone`, a tenant's DNS as far as a test is concerned (no DNS
 * server a tenant controls can run here); a name it does not hold does not resolve (ENOTFOUND).
 */
export function lookupInZone(zone: ReadonlyMap<string, string[]>): LookupName {
  return (hostname) => {
    const addresses = zone.get(hostname);
    return addresses === undefined
      ? Promise.reject(Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' }))
      : Promise.resolve(addresses);
  };
}

/** An Ingress of class `nginx` in the tenant's namespace. */
export function tenantIngress(
  name: string,
  options: Omit<Parameters<typeof ingressManifest>[1], 'namespace' | 'className'>,
): Record<string, unknown> {
  return ingressManifest(name, { namespace: TENANT, className: 'nginx', ...options });
}

/** A tenant's Ingress whose one path is the regular expression `path` (`use-regex`). */
export function tenantRegexIngress(name: string, host: string, path: string): Record<string, unknown> {
  return regexIngressManifest(name, { namespace: TENANT, className: 'nginx', host, service: 'evil', path });
}

/** `ingress` (a manifest, changed in place) with one TLS entry: `host` served with Secret `secretName`. */
export function withTls(
  ingress: Record<string, unknown>,
  host: string,
  secretName: string,
): Record<string, unknown> {
  (ingress.spec as Record<string, unknown>).tls = [{ hosts: [host], secretName }];
  return ingress;
}

/** The tenant's TLS Secret `name` holding `certificate` (PEM), and its Ingress `name` serving `host` with it. */
export function tenantTlsObjects(
  name: string,
  host: string,
  certificate: { crt: string; key: string },
): Record<string, unknown>[] {
  const ingress = withTls(tenantIngress(name, { host, service: 'evil' }), host, name);
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: TENANT },
      type: 'kubernetes.io/tls',
      data: {
        'tls.crt': Buffer.from(certificate.crt).toString('base64'),
        'tls.key': Buffer.from(certificate.key).toString('base64'),
      },
    },
    ingress,
  ];
}

/**
 * Waits for an Event of `reason` (`InvalidConfiguration` by default) on the tenant's Ingress
 * `name` whose note contains `fragment` (an Ingress seen before its Secret may have an earlier
 * Event, saying so).
 */
export function expectTenantEvent(
  testCase: SecurityCase,
  name: string,
  fragment: string,
  reason = 'InvalidConfiguration',
): Promise<void> {
  return eventually(async () => {
    await testCase.controller.events.flush();
    const notes = (await listEvents(testCase.cluster.server.kubeConfig(), TENANT))
      .filter((event) => event.regarding?.name === name && event.reason === reason)
      .map((event) => event.note ?? '');
    expect(
      notes.some((note) => note.includes(fragment)),
      `${TENANT}/${name}: ${notes.join(' | ')}`,
    ).toBe(true);
  });
}

/** The SHA-256 fingerprint of the certificate the case's controller presents for `serverName`. */
export async function presentedFingerprint(testCase: SecurityCase, serverName: string): Promise<string> {
  return (await presentedCertificate(testCase.controller, serverName)).fingerprint256;
}

/** The SHA-256 fingerprint of the certificate in a `kubernetes.io/tls` Secret manifest. */
export function secretFingerprint(secret: Record<string, unknown>): string {
  const data = secret.data as Record<string, string>;
  return new X509Certificate(Buffer.from(data['tls.crt']!, 'base64')).fingerprint256;
}

/**
 * The victim's pods move: a new `alpha` answers on another port, its EndpointSlice says so, and
 * once nginx has all the controller staged the old one stops. Were the victims' endpoint changes
 * held back by the tenant's objects, the probe would fail from then on.
 */
export async function moveVictimPods(testCase: SecurityCase): Promise<void> {
  const { cluster } = testCase;
  const moved = await startDemoBackend('alpha');
  const old = cluster.backends.get('alpha')!;
  cluster.backends.set('alpha', moved);
  await cluster.server.apply(endpointSliceManifest('alpha-alpha', 'alpha', moved.port));
  await eventually(async () => {
    const backend = testCase.controller.routeTable().backends.find(({ id }) => id === 'default/alpha:80');
    expect(backend?.endpoints).toEqual([{ address: '127.0.0.1', port: moved.port }]);
    expect(await testCase.controller.dataPlane.isInSync()).toBe(true);
  });
  await old.stop();
}

/** Stops the probe once it has sampled enough, prints its report and expects no failed request. */
export async function expectVictimsUnharmed(traffic: Traffic, label: string): Promise<void> {
  const report = await traffic.stopAfter(101);
  console.log(formatTrafficReport(label, report));
  expect(report.total).toBeGreaterThan(100);
  expect(report.failures).toEqual([]);
}
