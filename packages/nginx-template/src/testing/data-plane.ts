/**
 * Test-only: a running nginx data plane built from a route table, with the operations the
 * controller performs (push data, read the status, reload when the configuration changes,
 * restart) and requests to its listeners.
 */
import type { RouteTable, RouteTableDelta } from '@ingresskit/route-model';
import { buildConfiguration, type Configuration } from '../build-configuration.js';
import {
  createDataPlaneUpdate,
  DATA_ENDPOINT_PATH,
  STATUS_ENDPOINT_PATH,
  type DataPlaneStatus,
  type DataPlaneUpdateOptions,
} from '../data-plane-update.js';
import { diffConfigurations } from '../diff-configurations.js';
import { renderNginxConf } from '../render.js';
import type { RenderOptions } from '../settings.js';
import {
  createNginxPrefix,
  findFreePort,
  sendControlRequest,
  sendRequest,
  startNginx,
  testNginxConf,
  type NginxPrefix,
  type NginxProcess,
  type TestRequest,
  type TestResponse,
} from './nginx-process.js';

export { createListeners, createTestOrigin, createTestRoute } from './routes.js';

/** Two free ports for an HTTP and an HTTPS listener. */
export async function allocateListenerPorts(): Promise<{ http: number; https: number }> {
  const http = await findFreePort();
  let https = await findFreePort();
  while (https === http) https = await findFreePort();
  return { http, https };
}

/** A running data plane. */
export interface DataPlane {
  prefix: NginxPrefix;
  nginx: NginxProcess;
  ports: { http: number; https: number };
  configuration: Configuration;
  /** POSTs createDataPlaneUpdate(change, options) to the control socket. */
  push(
    change: RouteTable | RouteTableDelta,
    options?: DataPlaneUpdateOptions,
  ): Promise<{ status: number; json: unknown }>;
  /** POSTs a raw body. */
  pushRaw(body: string): Promise<{ status: number; json: unknown }>;
  status(): Promise<DataPlaneStatus>;
  /** A request to the HTTP listener (or the HTTPS one with `tls: true`). */
  request(options: Omit<TestRequest, 'port'> & { port?: number }): Promise<TestResponse>;
  /** Rebuilds the configuration for `table`; renders, tests and reloads when it changed. */
  reconfigure(table: RouteTable): Promise<{ reloaded: boolean }>;
  /** Stops nginx and starts it again from the same prefix (an empty shared dict). */
  restart(): Promise<void>;
  /**
   * Writes the data entry `key` behind the control endpoint's back, as a write that died half-way
   * would leave it (through a location only this test nginx.conf has).
   */
  tamper(key: string, value: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts nginx for `table` (whose listeners use `ports`); pushes nothing. */
export async function startDataPlane(options: {
  table: RouteTable;
  ports: { http: number; https: number };
  render?: Partial<RenderOptions>;
  workers?: number;
}): Promise<DataPlane> {
  const workers = options.workers ?? 2;
  const prefix = await createNginxPrefix();
  const renderOptions: RenderOptions = {
    controlSocketPath: prefix.socketPath,
    listenAddresses: ['127.0.0.1'],
    workerProcesses: workers,
    workerConnections: 1024,
    exposeRouteId: true,
    ...options.render,
  };
  const build = (table: RouteTable) => buildConfiguration(table, renderOptions).configuration;
  let configuration = build(options.table);
  await prefix.writeConf(withTamperLocation(renderNginxConf(configuration)));
  const tested = await testNginxConf(prefix);
  if (!tested.ok) {
    await prefix.remove();
    throw new Error(`nginx -t failed:\n${tested.output}`);
  }
  let nginx: NginxProcess;
  try {
    nginx = await startNginx(prefix, workers);
  } catch (error) {
    await prefix.remove();
    throw error;
  }
  const pushRaw = async (body: string) => {
    const response = await sendControlRequest(prefix.socketPath, 'POST', DATA_ENDPOINT_PATH, body);
    return { status: response.status, json: response.json };
  };
  const plane: DataPlane = {
    prefix,
    get nginx() {
      return nginx;
    },
    ports: options.ports,
    get configuration() {
      return configuration;
    },
    push: (change, updateOptions) => pushRaw(createDataPlaneUpdate(change, updateOptions)),
    pushRaw,
    async status() {
      const response = await sendControlRequest(prefix.socketPath, 'GET', STATUS_ENDPOINT_PATH);
      return response.json as DataPlaneStatus;
    },
    request: (request) =>
      sendRequest({ port: request.tls === true ? options.ports.https : options.ports.http, ...request }),
    async reconfigure(table) {
      const next = build(table);
      if (!diffConfigurations(configuration, next).reloadRequired) return { reloaded: false };
      await prefix.writeConf(withTamperLocation(renderNginxConf(next)));
      const outcome = await testNginxConf(prefix);
      if (!outcome.ok) throw new Error(`nginx -t failed:\n${outcome.output}`);
      await nginx.reload();
      configuration = next;
      return { reloaded: true };
    },
    async restart() {
      await nginx.stop();
      nginx = await startNginx(prefix, workers);
    },
    async tamper(key, value) {
      const path = `${TAMPER_PATH}?key=${encodeURIComponent(key)}`;
      const response = await sendControlRequest(prefix.socketPath, 'POST', path, value);
      if (response.status !== 204) throw new Error(`tamper answered ${response.status}: ${response.text}`);
    },
    async stop() {
      await nginx.stop();
      await prefix.remove();
    },
  };
  return plane;
}

const TAMPER_PATH = '/test/tamper';

/** Adds the location behind DataPlane.tamper to the control server of a rendered nginx.conf. */
function withTamperLocation(conf: string): string {
  const anchor = '        location = /configuration/status {';
  if (!conf.includes(anchor))
    throw new Error('the control server has no status location to add the tamper one beside');
  const tamper = [
    `        location = ${TAMPER_PATH} {`,
    '            content_by_lua_block {',
    '                ngx.req.read_body()',
    '                ngx.shared.ingresskit:set("d:" .. ngx.var.arg_key, ngx.req.get_body_data())',
    '                ngx.exit(204)',
    '            }',
    '        }',
    '',
  ].join('\n');
  return conf.replace(anchor, tamper + anchor);
}
