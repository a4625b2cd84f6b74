/**
 * The set-up of the ingress-nginx annotation suites (annotations-*.integration.test.ts): a local
 * API server holding Namespace `ingresskit`, IngressClass `nginx` and the case's objects, the
 * backends those objects point at, and one controller serving them through real nginx. Each file
 * starts one case before its tests and stops it after them.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ControllerConfig } from '../src/config.js';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { probe, type ProbeResponse } from '../src/http-probe.js';
import {
  eventually,
  ingressClassManifest,
  ingressManifest,
  listEvents,
  startBackends,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

/** The prefix of ingress-nginx's annotations. */
export const A = 'nginx.ingress.kubernetes.io/';

/** What a case's `objects` may use: its started backends. */
export interface AnnotationsCaseBackends {
  /** The demo backends of {@link AnnotationsCaseOptions.backends}, by name. */
  backends: Map<string, DemoBackend>;
  /** Starts an HTTP backend on 127.0.0.1 answering with `handler`, closed when the case stops; its port. */
  listen: (handler: RequestListener) => Promise<number>;
}

/** What a case serves and how its controller runs. */
export interface AnnotationsCaseOptions {
  /** The controller's pod name and any other settings of its config. */
  config: Partial<ControllerConfig> & Pick<ControllerConfig, 'podName'>;
  /** Demo backends to start; each answers `<name>: GET host/path`. */
  backends?: readonly string[];
  /** The case's objects, applied with Namespace `ingresskit` and IngressClass `nginx`. */
  objects(started: AnnotationsCaseBackends): Record<string, unknown>[] | Promise<Record<string, unknown>[]>;
  /** A host that answers 200 once the controller serves the objects; the case waits for it. */
  readyHost: string;
}

/** Options of one request through a case's nginx. */
export interface SendOptions {
  path?: string;
  headers?: Record<string, string>;
}

/** A running case. */
export interface AnnotationsCase {
  server: LocalApiServer;
  controller: Controller;
  /** The demo backends, by name. */
  backends: Map<string, DemoBackend>;
  /** A GET of `host` through the controller's nginx (path `/` unless told). */
  send(host: string, options?: SendOptions): Promise<ProbeResponse>;
  /** Which backend answered a GET of `host`: see {@link backendOf}. */
  answer(host: string, options?: SendOptions): Promise<string>;
  stop(): Promise<void>;
}

/** The name of the demo backend that answered (before the colon of the body), or the status when not 200. */
export function backendOf(response: ProbeResponse): string {
  return response.status === 200 ? (response.body.split(':')[0] ?? '') : String(response.status);
}

/**
 * An Ingress of class `nginx` in `default`, named `host` unless `options.name`, with one Prefix
 * path (`/` unless `options.path`) of `host` to `service` and `annotations`.
 */
export function annotatedIngress(
  host: string,
  service: string,
  annotations: Record<string, string>,
  options: { name?: string; namespace?: string; path?: string; port?: number } = {},
): Record<string, unknown> {
  const { name = host, ...rest } = options;
  return ingressManifest(name, { host, service, className: 'nginx', annotations, ...rest });
}

/** Starts the backends, the API server with the case's objects and a controller, and waits until it serves them. */
export async function startAnnotationsCase(options: AnnotationsCaseOptions): Promise<AnnotationsCase> {
  const servers: Server[] = [];
  let backends = new Map<string, DemoBackend>();
  let server: LocalApiServer | undefined;
  let controller: Controller | undefined;
  const stop = async () => {
    await controller?.stop();
    await server?.stop();
    for (const backend of servers) await new Promise((resolve) => backend.close(resolve));
    for (const running of backends.values()) await running.stop();
  };
  try {
    backends = await startBackends(...(options.backends ?? []));
    const listen = async (handler: RequestListener): Promise<number> => {
      const backend = createServer(handler);
      servers.push(backend);
      await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
      return (backend.address() as AddressInfo).port;
    };
    const objects = await options.objects({ backends, listen });
    server = await startLocalApiServer({ port: 0 });
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
      ingressClassManifest('nginx'),
      ...objects,
    ]);
    controller = await startController(server, options.config);
    const port = controller.config.httpPort;
    const send = (host: string, { path = '/', headers }: SendOptions = {}) =>
      probe({ port, host, path, headers });
    await eventually(async () => expect((await send(options.readyHost)).status).toBe(200));
    return {
      server,
      controller,
      backends,
      send,
      answer: async (host, sendOptions) => backendOf(await send(host, sendOptions)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts a case before the tests of the calling file and stops it after them; call the returned
 * function in a test to get it.
 */
export function useAnnotationsCase(options: AnnotationsCaseOptions): () => AnnotationsCase {
  let testCase: AnnotationsCase | undefined;
  beforeAll(async () => {
    testCase = await startAnnotationsCase(options);
  });
  afterAll(async () => {
    await testCase?.stop();
  });
  return () => {
    if (testCase === undefined) throw new Error('the annotations case did not start');
    return testCase;
  };
}

/** Runs `change` and checks that `controller`'s nginx neither reloaded nor changed workers meanwhile. */
export async function expectNoReload(controller: Controller, change: () => Promise<void>): Promise<void> {
  // The workers of an earlier reload may still be finishing: count only the running nginx.conf's.
  const { workerProcesses } = controller.config;
  if (typeof workerProcesses === 'number') {
    await eventually(async () =>
      expect(await controller.dataPlane.workerPids()).toHaveLength(workerProcesses),
    );
  }
  const workers = await controller.dataPlane.workerPids();
  const reloads = controller.dataPlane.reloadCount;
  await change();
  expect(controller.dataPlane.reloadCount).toBe(reloads);
  expect(await controller.dataPlane.workerPids()).toEqual(workers);
}

/** The notes of the Events about the Ingress `name` of `default`, once the controller has sent its own. */
export async function listIngressNotes(testCase: AnnotationsCase, name: string): Promise<string[]> {
  await testCase.controller.events.flush();
  return (await listEvents(testCase.server.kubeConfig(), 'default'))
    .filter((event) => event.regarding?.kind === 'Ingress' && event.regarding.name === name)
    .map((event) => event.note ?? '');
}
