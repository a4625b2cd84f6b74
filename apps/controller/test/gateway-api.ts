/**
 * The set-up of the Gateway API suites (gateway-api*.integration.test.ts): the Gateway API v1.6.1
 * CRDs in a local API server, the conformance namespaces and backends, a GatewayClass for one
 * controller with real nginx, and the helpers their scenarios share (manifests, statuses read
 * back, requests through nginx). Each file calls useGatewayApiCase() once; `server`, `controller`
 * and `backends` are then that file's.
 */
import { readFileSync } from 'node:fs';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { probe, type ProbeResponse } from '../src/http-probe.js';
import {
  eventually,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

export const CONTROLLER_NAME = 'ingresskit.dev/gateway-controller';
export const GROUP = 'gateway.networking.k8s.io';
export const INFRA = 'gateway-conformance-infra';
export const WEB = 'gateway-conformance-web-backend';
export const APP = 'gateway-conformance-app-backend';

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}
export interface GatewayObject {
  metadata: { generation?: number; resourceVersion?: string };
  status?: {
    addresses?: { type: string; value: string }[];
    conditions?: Condition[];
    listeners?: { name: string; attachedRoutes: number; conditions: Condition[] }[];
  };
}
export interface RouteObject {
  metadata: { generation?: number; resourceVersion?: string };
  status?: {
    parents?: {
      parentRef: { name: string; namespace?: string };
      controllerName: string;
      conditions: Condition[];
    }[];
  };
}

export let server: LocalApiServer;
export let controller: Controller;
export let backends: Map<string, DemoBackend>;

export function crd(file: string): string {
  return readFileSync(new URL(`../../../testdata/gateway-api-v1.6.1/${file}`, import.meta.url), 'utf8');
}

export function api(): CustomObjectsApi {
  return server.kubeConfig().makeApiClient(CustomObjectsApi);
}

export async function readGateway(namespace: string, name: string): Promise<GatewayObject> {
  return (await api().getNamespacedCustomObject({
    group: GROUP,
    version: 'v1',
    plural: 'gateways',
    namespace,
    name,
  })) as GatewayObject;
}

export async function readRoute(namespace: string, name: string): Promise<RouteObject> {
  return (await api().getNamespacedCustomObject({
    group: GROUP,
    version: 'v1',
    plural: 'httproutes',
    namespace,
    name,
  })) as RouteObject;
}

export function condition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((entry) => entry.type === type);
}

/** Our parent status entry of a route for the Gateway `name`. */
export async function parentStatus(namespace: string, route: string, gateway: string) {
  const object = await readRoute(namespace, route);
  const parent = object.status?.parents?.find(
    (entry) => entry.controllerName === CONTROLLER_NAME && entry.parentRef.name === gateway,
  );
  if (parent === undefined)
    throw new Error(`HTTPRoute ${namespace}/${route} has no status for ${gateway} yet`);
  return { generation: object.metadata.generation, conditions: parent.conditions };
}

/** Waits until the route's parent status has these condition reasons (type → `status/reason`). */
export async function expectRouteConditions(
  namespace: string,
  route: string,
  gateway: string,
  expected: Record<string, string>,
): Promise<void> {
  await eventually(async () => {
    const { generation, conditions } = await parentStatus(namespace, route, gateway);
    for (const [type, value] of Object.entries(expected)) {
      const found = condition(conditions, type);
      expect({ type, value: `${found?.status}/${found?.reason}` }).toEqual({ type, value });
      expect(found?.observedGeneration).toBe(generation);
      expect(found?.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
  });
}

export function gateway(
  name: string,
  listeners: Record<string, unknown>[],
  namespace = INFRA,
): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'Gateway',
    metadata: { name, namespace },
    spec: { gatewayClassName: 'ingresskit', listeners },
  };
}

export function httpListener(
  name: string,
  hostname?: string,
  allowedRoutes?: unknown,
): Record<string, unknown> {
  return {
    name,
    port: 80,
    protocol: 'HTTP',
    ...(hostname === undefined ? {} : { hostname }),
    ...(allowedRoutes === undefined ? {} : { allowedRoutes }),
  };
}

export function httpRoute(
  name: string,
  spec: { parentRefs: Record<string, unknown>[]; hostnames?: string[]; rules: Record<string, unknown>[] },
  namespace = INFRA,
): Record<string, unknown> {
  return { apiVersion: `${GROUP}/v1`, kind: 'HTTPRoute', metadata: { name, namespace }, spec };
}

/** Applies a Gateway `name` with one HTTP listener for `hostname`, and an HTTPRoute on it. */
export async function applyGatewayAndRoute(
  name: string,
  hostname: string,
  route: string,
  rules: Record<string, unknown>[],
): Promise<void> {
  await server.apply([
    gateway(name, [httpListener('http', hostname)]),
    httpRoute(route, { parentRefs: [{ name }], rules }),
  ]);
}

/** A rule sending the requests any of `matches` matches (all, without any) to one backend. */
export function rule(backend: string, ...matches: Record<string, unknown>[]): Record<string, unknown> {
  return { ...(matches.length === 0 ? {} : { matches }), backendRefs: [backendRef(backend)] };
}

export function backendRef(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, port: 80, ...extra };
}

export function send(
  host: string,
  path = '/',
  headers?: Record<string, string>,
  tls = false,
): Promise<ProbeResponse> {
  return probe({
    port: tls ? controller.config.httpsPort : controller.config.httpPort,
    host,
    path,
    tls,
    ...(headers === undefined ? {} : { headers }),
  });
}

/** Which backend answered (the name before the colon), or the status when not 200. */
export async function answer(host: string, path = '/', headers?: Record<string, string>): Promise<string> {
  const response = await send(host, path, headers);
  return response.status === 200 ? (response.body.split(':')[0] ?? '') : String(response.status);
}

/** Waits until every request answers as expected: `[host, path, expected, headers?]`. */
export async function expectAnswers(
  cases: [string, string, string, Record<string, string>?][],
): Promise<void> {
  await eventually(async () => {
    const actual = await Promise.all(cases.map(([host, path, , headers]) => answer(host, path, headers)));
    expect(cases.map(([host, path], index) => `${host}${path} → ${actual[index]}`)).toEqual(
      cases.map(([host, path, expected]) => `${host}${path} → ${expected}`),
    );
  });
}

/** Starts the API server with the CRDs, namespaces, GatewayClass and backends, and a controller, for the calling file. */
export function useGatewayApiCase(): void {
  beforeAll(async () => {
    backends = await startBackends(
      'infra-backend-v1',
      'infra-backend-v2',
      'infra-backend-v3',
      'web-backend',
      'shop',
    );
    server = await startLocalApiServer({ port: 0 });
    for (const file of ['gatewayclasses.yaml', 'gateways.yaml', 'httproutes.yaml', 'referencegrants.yaml'])
      await server.apply(crd(file));
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: INFRA } },
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: WEB, labels: { 'gateway-conformance': 'backend' } },
      },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: APP } },
      {
        apiVersion: `${GROUP}/v1`,
        kind: 'GatewayClass',
        metadata: { name: 'ingresskit' },
        spec: { controllerName: CONTROLLER_NAME },
      },
      ...['infra-backend-v1', 'infra-backend-v2', 'infra-backend-v3'].flatMap((name) =>
        serviceManifests(name, [backends.get(name)!], INFRA),
      ),
      ...serviceManifests('web-backend', [backends.get('web-backend')!], WEB),
      ...serviceManifests('app-backend', [backends.get('web-backend')!], APP),
    ]);
    controller = await startController(server, {
      gatewayControllerName: CONTROLLER_NAME,
      podName: 'gateway-api',
    });
    await eventually(() => expect(controller.isLeader()).toBe(true));
  });

  afterAll(async () => {
    await controller?.stop();
    await server?.stop();
    for (const running of backends?.values() ?? []) await running.stop();
  });
}
