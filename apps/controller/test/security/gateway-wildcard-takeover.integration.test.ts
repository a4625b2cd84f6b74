/**
 * Finding (issue #31, 3): Gateway API took names under another namespace's wildcard. Ownership
 * compared hostnames as exact strings, so while the victim's Gateway listened on
 * `*.gw.reliability.test` and its Ingress served `*.ing.reliability.test`, a tenant's Gateway
 * listener hostname or HTTPRoute hostname under either took that name, and the route said
 * `Accepted` with nothing amiss.
 *
 * Now such a name belongs to the victim: the tenant's listener for it is `Conflicted`
 * (`HostnameConflict`) and not `Programmed`, its routes get `PartiallyInvalid`
 * (`HostnameOwnedElsewhere`), each with an Event naming the owner and its wildcard, and requests
 * keep reaching the victim; the tenant's listener no longer takes the victim's route off a name
 * (listener isolation stays within a namespace). A Gateway API wildcard covers any number of
 * labels, an Ingress one one: the tenant keeps a name two labels under the Ingress wildcard, and
 * its own names.
 */
import { CustomObjectsApi } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  CONTROLLER_NAME,
  crd,
  GROUP,
  type Condition,
  type GatewayObject,
  type RouteObject,
} from '../gateway-api.js';
import { answerOf, eventually, ingressManifest, listEvents } from '../harness.js';
import { expectVictimsUnharmed, TENANT, useSecurityCase } from './tenant.js';

const testCase = useSecurityCase('gateway-wildcard', { gatewayControllerName: CONTROLLER_NAME });

function gateway(namespace: string, name: string, listeners: [string, string?][]): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'Gateway',
    metadata: { name, namespace },
    spec: {
      gatewayClassName: 'ingresskit',
      listeners: listeners.map(([listener, hostname]) => ({
        name: listener,
        port: 80,
        protocol: 'HTTP',
        ...(hostname === undefined ? {} : { hostname }),
      })),
    },
  };
}

function httpRoute(
  namespace: string,
  name: string,
  parent: { name: string; sectionName?: string },
  service: string,
  hostnames?: string[],
): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'HTTPRoute',
    metadata: { name, namespace },
    spec: {
      parentRefs: [parent],
      ...(hostnames === undefined ? {} : { hostnames }),
      rules: [{ backendRefs: [{ name: service, port: 80 }] }],
    },
  };
}

function read<T>(plural: string, namespace: string, name: string): Promise<T> {
  const api = testCase().cluster.server.kubeConfig().makeApiClient(CustomObjectsApi);
  return api.getNamespacedCustomObject({
    group: GROUP,
    version: 'v1',
    plural,
    namespace,
    name,
  }) as Promise<T>;
}

function summary(conditions: readonly Condition[] | undefined): Record<string, string> {
  return Object.fromEntries(
    (conditions ?? []).map(({ type, status, reason }) => [type, `${status}/${reason}`]),
  );
}

/** Waits for an `InvalidConfiguration` Event on the tenant's `kind` `name` containing `fragment`. */
function expectEvent(kind: string, name: string, fragment: string): Promise<void> {
  return eventually(async () => {
    await testCase().controller.events.flush();
    const notes = (await listEvents(testCase().cluster.server.kubeConfig(), TENANT))
      .filter(
        (event) =>
          event.regarding?.kind === kind &&
          event.regarding.name === name &&
          event.reason === 'InvalidConfiguration',
      )
      .map((event) => event.note ?? '');
    expect(
      notes.some((note) => note.includes(fragment)),
      notes.join(' | '),
    ).toBe(true);
  });
}

const ownedThrough = (host: string, owner: string, wildcard: string) =>
  `host ${host} belongs to namespace default, whose ${owner} is the oldest to name it (through its wildcard ${wildcard})`;

describe("a tenant's Gateway listeners and HTTPRoutes under the victim's wildcards", () => {
  it('are conflicted, with Events naming the owner; the victim keeps its names', async () => {
    const { cluster, controller } = testCase();
    for (const file of ['gatewayclasses.yaml', 'gateways.yaml', 'httproutes.yaml', 'referencegrants.yaml'])
      await cluster.server.apply(crd(file));
    await cluster.server.apply([
      {
        apiVersion: `${GROUP}/v1`,
        kind: 'GatewayClass',
        metadata: { name: 'ingresskit' },
        spec: { controllerName: CONTROLLER_NAME },
      },
      gateway('default', 'edge', [['http', '*.gw.reliability.test']]),
      httpRoute('default', 'site', { name: 'edge' }, 'alpha'),
      httpRoute('default', 'shop', { name: 'edge' }, 'gamma', ['shop.gw.reliability.test']),
      ingressManifest('wild', { host: '*.ing.reliability.test', service: 'beta', className: 'nginx' }),
    ]);
    await eventually(async () => {
      expect(await answerOf(controller, 'shop.gw.reliability.test')).toBe('gamma');
      expect(await answerOf(controller, 'x.y.gw.reliability.test')).toBe('alpha');
      expect(await answerOf(controller, 'shop.ing.reliability.test')).toBe('beta');
    }, 30_000);
    // Creation timestamps have second precision: the tenant's objects must be the younger.
    await sleep(1_100);
    const traffic = testCase().probeVictims([
      {
        name: 'gateway route name',
        host: 'shop.gw.reliability.test',
        path: '/',
        tls: false,
        expect: 'gamma',
      },
      {
        name: 'gateway wildcard, route name',
        host: 'pay.gw.reliability.test',
        path: '/',
        tls: false,
        expect: 'alpha',
      },
      { name: 'ingress wildcard', host: 'shop.ing.reliability.test', path: '/', tls: false, expect: 'beta' },
      {
        name: 'ingress wildcard, route name',
        host: 'pay.ing.reliability.test',
        path: '/',
        tls: false,
        expect: 'beta',
      },
    ]);
    await cluster.server.apply([
      gateway(TENANT, 'evil', [
        ['grab', 'shop.gw.reliability.test'],
        ['grab-ingress', 'shop.ing.reliability.test'],
        ['any'],
      ]),
      httpRoute(TENANT, 'via-listener', { name: 'evil', sectionName: 'grab' }, 'evil'),
      httpRoute(TENANT, 'take', { name: 'evil', sectionName: 'any' }, 'evil', [
        'pay.gw.reliability.test',
        'pay.ing.reliability.test',
        'deep.pay.ing.reliability.test',
        'mine.mallory.test',
      ]),
    ]);
    const gatewayOwner = (host: string) =>
      ownedThrough(host, 'Gateway default/edge', '*.gw.reliability.test');
    const ingressOwner = (host: string) =>
      ownedThrough(host, 'Ingress default/wild', '*.ing.reliability.test');
    await eventually(async () => {
      const evil = await read<GatewayObject>('gateways', TENANT, 'evil');
      const listeners = new Map(evil.status?.listeners?.map((entry) => [entry.name, entry.conditions]));
      expect(summary(listeners.get('grab'))).toMatchObject({
        Conflicted: 'True/HostnameConflict',
        Programmed: 'False/Invalid',
      });
      expect(listeners.get('grab')?.find(({ type }) => type === 'Conflicted')?.message).toContain(
        gatewayOwner('shop.gw.reliability.test'),
      );
      expect(summary(listeners.get('grab-ingress')).Conflicted).toBe('True/HostnameConflict');
      expect(summary(listeners.get('any'))).toMatchObject({
        Conflicted: 'False/NoConflicts',
        Programmed: 'True/Programmed',
      });
      expect(summary(evil.status?.conditions).Accepted).toBe('True/ListenersNotValid');
      for (const name of ['via-listener', 'take']) {
        const route = await read<RouteObject>('httproutes', TENANT, name);
        const parent = route.status?.parents?.find((entry) => entry.controllerName === CONTROLLER_NAME);
        expect(summary(parent?.conditions)).toMatchObject({
          Accepted: 'True/Accepted',
          PartiallyInvalid: 'True/HostnameOwnedElsewhere',
        });
      }
    });
    await expectEvent('Gateway', 'evil', gatewayOwner('shop.gw.reliability.test'));
    await expectEvent('Gateway', 'evil', ingressOwner('shop.ing.reliability.test'));
    await expectEvent('HTTPRoute', 'via-listener', gatewayOwner('shop.gw.reliability.test'));
    await expectEvent('HTTPRoute', 'take', gatewayOwner('pay.gw.reliability.test'));
    await expectEvent('HTTPRoute', 'take', ingressOwner('pay.ing.reliability.test'));
    // The tenant's own names are served; so is a name two labels under the Ingress's wildcard,
    // which covers one label only.
    await eventually(async () => {
      expect(await answerOf(controller, 'mine.mallory.test')).toBe('evil');
      expect(await answerOf(controller, 'deep.pay.ing.reliability.test')).toBe('evil');
    });
    for (const [host, backend] of [
      ['shop.gw.reliability.test', 'gamma'],
      ['pay.gw.reliability.test', 'alpha'],
      ['shop.ing.reliability.test', 'beta'],
      ['pay.ing.reliability.test', 'beta'],
    ]) {
      expect(await answerOf(controller, host!)).toBe(backend);
    }
    await expectVictimsUnharmed(traffic, 'gateway wildcard takeover');
  }, 60_000);
});
