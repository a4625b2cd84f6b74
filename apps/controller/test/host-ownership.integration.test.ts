/**
 * A host belongs to the namespace of its oldest Ingress: a tenant of another namespace cannot add
 * a catch-all regex, a more specific path or a certificate to it. What the tenant wrote is left out
 * with an Event on their Ingress, and the victim's traffic never changes hands. With
 * `--allow-cross-namespace-hosts` (ingress-nginx's behaviour) the same Ingresses share the host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import {
  answerOf,
  eventually,
  ingressClassManifest,
  ingressManifest,
  listEvents,
  presentedCertificate,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  tlsSecretManifest,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let backends: Map<string, DemoBackend>;
const controllers: Controller[] = [];

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

/** The attacker's Ingresses: a regex catch-all and a TLS entry on the victim's host. */
function attackerIngresses(): Record<string, unknown>[] {
  const grab = ingressManifest('grab', {
    namespace: 'attacker',
    host: 'shop.test',
    service: 'evil',
    path: '/.*',
    className: 'nginx',
    annotations: { 'nginx.ingress.kubernetes.io/use-regex': 'true' },
  });
  const rule = (grab.spec as { rules: { http: { paths: { pathType: string }[] } }[] }).rules[0]!;
  rule.http.paths[0]!.pathType = 'ImplementationSpecific';
  const admin = ingressManifest('admin', {
    namespace: 'attacker',
    host: 'shop.test',
    service: 'evil',
    path: '/admin',
    className: 'nginx',
  });
  (admin.spec as Record<string, unknown>).tls = [{ hosts: ['shop.test'], secretName: 'evil-tls' }];
  return [grab, admin];
}

beforeAll(async () => {
  backends = await startBackends('victim', 'evil');
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    namespace('ingresskit'),
    namespace('victim'),
    namespace('attacker'),
    ingressClassManifest('nginx'),
    ...serviceManifests('shop', [backends.get('victim')!], 'victim'),
    ...serviceManifests('evil', [backends.get('evil')!], 'attacker'),
    tlsSecretManifest('evil-tls', 'shop.test', 'attacker'),
    ingressManifest('shop', { namespace: 'victim', host: 'shop.test', service: 'shop', className: 'nginx' }),
  ]);
  // Creation timestamps have second precision: the attacker's Ingresses must be younger.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  await server.apply(attackerIngresses());
});

afterAll(async () => {
  for (const controller of controllers) await controller.stop();
  await server?.stop();
  for (const running of backends?.values() ?? []) await running.stop();
});

describe('host ownership', () => {
  it("keeps another namespace's regex, path and certificate off a host it does not own", async () => {
    const controller = await startController(server, { podName: 'owner' });
    controllers.push(controller);
    for (const path of ['/', '/admin', '/anything']) {
      expect(await answerOf(controller, 'shop.test', path)).toBe('victim');
    }
    const certificate = await presentedCertificate(controller, 'shop.test');
    expect(certificate.subject.CN).not.toBe('shop.test');
    const notes = await eventually(async () => {
      await controller.events.flush();
      const events = (await listEvents(server.kubeConfig(), 'attacker')).filter(
        (event) => event.reason === 'InvalidConfiguration',
      );
      expect(events.map((event) => event.regarding?.name).sort()).toEqual(['admin', 'grab']);
      return events.map((event) => event.note ?? '');
    });
    for (const note of notes) {
      expect(note).toContain('host shop.test belongs to namespace victim');
    }
    await controller.stop();
  });

  it("gives names under an older namespace's wildcard to it, and shares them with --allow-cross-namespace-hosts", async () => {
    await server.apply([
      ingressManifest('wild', {
        namespace: 'victim',
        host: '*.wild.test',
        service: 'shop',
        className: 'nginx',
      }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await server.apply([
      ingressManifest('under', {
        namespace: 'attacker',
        host: 'pay.wild.test',
        service: 'evil',
        className: 'nginx',
      }),
    ]);
    const owner = await startController(server, { podName: 'wildcard-owner' });
    controllers.push(owner);
    await eventually(async () => expect(await answerOf(owner, 'pay.wild.test', '/')).toBe('victim'));
    await owner.stop();
    // ingress-nginx's behaviour: the exact name is the attacker's server, the wildcard the victim's.
    const shared = await startController(server, {
      podName: 'wildcard-shared',
      allowCrossNamespaceHosts: true,
    });
    controllers.push(shared);
    expect(await answerOf(shared, 'pay.wild.test', '/')).toBe('evil');
    expect(await answerOf(shared, 'other.wild.test', '/')).toBe('victim');
    await shared.stop();
  });

  it('lets namespaces share the host with --allow-cross-namespace-hosts, as ingress-nginx does', async () => {
    const controller = await startController(server, { podName: 'shared', allowCrossNamespaceHosts: true });
    controllers.push(controller);
    // The attacker's TLS entry turns the victim's plain HTTP into redirects, as in ingress-nginx.
    expect(await answerOf(controller, 'shop.test', '/')).toBe('308');
    expect(await answerOf(controller, 'shop.test', '/admin', true)).toBe('evil');
    expect((await presentedCertificate(controller, 'shop.test')).subject.CN).toBe('shop.test');
    await controller.stop();
  });
});
