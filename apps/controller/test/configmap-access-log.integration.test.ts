/**
 * The controller ConfigMap's access log keys end to end (local API server, the controller, nginx,
 * real HTTP): log-format-upstream and access-log-path shape the line nginx writes, with
 * ingress-nginx's own variables provided (the backend, the request id, and the Ingress, Service,
 * port and path of the route, per request); skip-access-log-urls and the default backend are left
 * out; a format naming a variable that cannot be logged is refused with an Event while the last
 * valid one keeps being written; a format written as a YAML block scalar (ending in a newline) is
 * taken; a TCP service's connections are logged in log-format-stream to stream-access-log-path,
 * with ingress-nginx's $proxy_upstream_name.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { annotatedIngress, useAnnotationsCase } from './annotations.js';
import { probe } from '../src/http-probe.js';
import { findFreePort } from '../src/ports.js';
import {
  controllerConfigMapManifest,
  CONTROLLER_CONFIGMAP,
  endpointSliceManifest,
  eventually,
  listConfigMapEvents,
  serviceManifests,
  tcpServicesConfigMapManifest,
  TCP_SERVICES_CONFIGMAP,
} from './harness.js';

const logDir = await mkdtemp(join(tmpdir(), 'ik-access-log-'));
const logPath = join(logDir, 'requests.log');
const streamLogPath = join(logDir, 'tcp.log');
afterAll(() => rm(logDir, { recursive: true, force: true }));
const tcpPort = await findFreePort();

/** A second Ingress, in another namespace, naming its Service's port by name under a path of its own. */
const shopIngress = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'storefront', namespace: 'shop' },
  spec: {
    ingressClassName: 'nginx',
    rules: [
      {
        host: 'shop.test',
        http: {
          paths: [
            {
              path: '/api/',
              pathType: 'Prefix',
              backend: { service: { name: 'web', port: { name: 'http' } } },
            },
          ],
        },
      },
    ],
  },
};

const started = useAnnotationsCase({
  config: {
    podName: 'configmap-access-log',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
    tcpServicesConfigMap: TCP_SERVICES_CONFIGMAP,
  },
  readyHost: 'logged.test',
  objects: async ({ listen }) => {
    const port = await listen((_incoming, response) => response.end('ok'));
    return [
      controllerConfigMapManifest({}),
      ...serviceManifests('app', []),
      endpointSliceManifest('app-1', 'app', port),
      annotatedIngress('logged.test', 'app', {}),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      ...serviceManifests('web', [], 'shop'),
      endpointSliceManifest('web-1', 'web', port, 'shop'),
      shopIngress,
      tcpServicesConfigMapManifest({ [String(tcpPort)]: 'default/app:80' }),
    ];
  },
});

const FORMAT =
  '$request_method $request_uri $status [$proxy_upstream_name] [$proxy_alternative_upstream_name] id=$req_id host=${host};';

const configMap = (extra: Record<string, string> = {}) =>
  controllerConfigMapManifest({
    'disable-access-log': 'false',
    'access-log-path': logPath,
    'log-format-upstream': FORMAT,
    'skip-access-log-urls': '/healthz,/probe?full=1',
    ...extra,
  });

async function get(path: string, host = 'logged.test') {
  const { controller } = started();
  return probe({ port: controller.config.httpPort, host, path, headers: { 'x-request-id': `req-${path}` } });
}

async function logLines(path = logPath): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

/** Sends one HTTP request through the TCP service's port and gives the answer once nginx closes the connection. */
function requestThroughTcpService(): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: tcpPort }, () =>
      socket.write('GET /through-tcp HTTP/1.1\r\nHost: tcp.test\r\nConnection: close\r\n\r\n'),
    );
    let answer = '';
    socket.on('data', (data) => (answer += String(data)));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('controller ConfigMap access log', () => {
  it('writes the format of log-format-upstream to access-log-path, without the skipped URLs', async () => {
    const { controller, server } = started();
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([configMap()]);
    await eventually(() => expect(controller.dataPlane.reloadCount).toBeGreaterThan(reloads));
    await eventually(async () => {
      expect((await get('/first')).status).toBe(200);
      expect(await logLines()).toContain(
        'GET /first 200 [default/app:80] [] id=req-/first host=logged.test;',
      );
    });
    for (const path of ['/healthz', '/HEALTHZ', '/probe?full=1', '/probe?full=2', '/healthz/deep', '/last'])
      expect((await get(path)).status).toBe(200);
    await eventually(async () => expect((await logLines()).at(-1)).toMatch(/^GET \/last 200 /));
    const paths = (await logLines()).map((line) => line.split(' ')[1]);
    // nginx's map compares skip-access-log-urls with the whole request URI, without case.
    expect(paths).toContain('/probe?full=2');
    expect(paths).toContain('/healthz/deep');
    expect(paths).not.toContain('/healthz');
    expect(paths).not.toContain('/HEALTHZ');
    expect(paths).not.toContain('/probe?full=1');
  });

  it('leaves out requests the default backend answers unless enable-access-log-for-default-backend', async () => {
    const { server } = started();
    await server.apply([configMap()]);
    expect((await get('/unknown-host', 'nobody.test')).status).toBe(404);
    expect((await get('/after-unknown')).status).toBe(200);
    await eventually(async () => expect((await logLines()).at(-1)).toMatch(/^GET \/after-unknown /));
    expect((await logLines()).some((line) => line.includes('host=nobody.test'))).toBe(false);
    await server.apply([configMap({ 'enable-access-log-for-default-backend': 'true' })]);
    await eventually(async () => {
      expect((await get('/unknown-host', 'nobody.test')).status).toBe(404);
      expect((await logLines()).at(-1)).toBe(
        'GET /unknown-host 404 [] [] id=req-/unknown-host host=nobody.test;',
      );
    });
  });

  it('refuses a format naming a variable it cannot log with an Event, and keeps writing the last valid one', async () => {
    const { controller, server } = started();
    await server.apply([configMap()]);
    await eventually(async () => {
      expect((await get('/before')).status).toBe(200);
      expect((await logLines()).at(-1)).toMatch(/^GET \/before 200 \[default\/app:80\]/);
    });
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([configMap({ 'log-format-upstream': '$status $geoip_country' })]);
    await eventually(async () =>
      expect(await listConfigMapEvents(started(), CONTROLLER_CONFIGMAP)).toEqual(
        expect.arrayContaining([
          `InvalidConfiguration: data["log-format-upstream"]: "log-format-upstream" names "$geoip_country", which is not a variable nginx or ingresskit defines; the last valid value ${JSON.stringify(FORMAT)} stays`,
        ]),
      ),
    );
    expect((await get('/after')).status).toBe(200);
    await eventually(async () =>
      expect((await logLines()).at(-1)).toBe(
        'GET /after 200 [default/app:80] [] id=req-/after host=logged.test;',
      ),
    );
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });

  it("writes each route's Ingress, Service, port and path from a JSON block scalar ending in a newline", async () => {
    const { controller, server } = started();
    // As `log-format-upstream: |` reads in YAML: one line, then a newline.
    const jsonFormat =
      '{"ns": "$namespace", "ingress": "$ingress_name", "service": "$service_name", "port": "$service_port", "path": "$location_path", "uri": "$request_uri", "status": $status}\n';
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([configMap({ 'log-format-upstream': jsonFormat, 'log-format-escape-json': 'true' })]);
    await eventually(() => expect(controller.dataPlane.reloadCount).toBeGreaterThan(reloads));
    const entries = async () =>
      (await logLines())
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    await eventually(async () => {
      expect((await get('/json-first')).status).toBe(200);
      expect((await get('/api/items', 'shop.test')).status).toBe(200);
      expect((await get('/json-unknown', 'nobody.test')).status).toBe(404);
      expect((await entries()).map((entry) => entry.uri)).toEqual(
        expect.arrayContaining(['/json-first', '/api/items']),
      );
    });
    const byUri = new Map((await entries()).map((entry) => [entry.uri, entry]));
    expect(byUri.get('/json-first')).toEqual({
      ns: 'default',
      ingress: 'logged.test',
      service: 'app',
      port: '80',
      path: '/',
      uri: '/json-first',
      status: 200,
    });
    // A named port is logged by its name, and the path as the Ingress wrote it, as ingress-nginx.
    expect(byUri.get('/api/items')).toEqual({
      ns: 'shop',
      ingress: 'storefront',
      service: 'web',
      port: 'http',
      path: '/api/',
      uri: '/api/items',
      status: 200,
    });
    expect(await listConfigMapEvents(started(), CONTROLLER_CONFIGMAP)).not.toEqual(
      expect.arrayContaining([
        expect.stringContaining('log-format-upstream" must not hold control characters'),
      ]),
    );
    // The trailing newline is dropped, not logged as an empty line after each entry.
    expect((await readFile(logPath, 'utf8')).includes('\n\n')).toBe(false);
    // Requests no route matches log the fields empty (enable-access-log-for-default-backend).
    await server.apply([
      configMap({
        'log-format-upstream': jsonFormat,
        'log-format-escape-json': 'true',
        'enable-access-log-for-default-backend': 'true',
      }),
    ]);
    await eventually(async () => {
      expect((await get('/json-unknown', 'nobody.test')).status).toBe(404);
      expect((await entries()).at(-1)).toEqual({
        ns: '',
        ingress: '',
        service: '',
        port: '',
        path: '',
        uri: '/json-unknown',
        status: 404,
      });
    });
  });

  it("logs a TCP service's connections in log-format-stream to stream-access-log-path", async () => {
    const { controller, server } = started();
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([
      configMap({
        'stream-access-log-path': streamLogPath,
        'log-format-stream':
          'tcp $protocol $status port=$server_port up=$upstream_addr [$proxy_upstream_name]\n',
      }),
    ]);
    await eventually(() => expect(controller.dataPlane.reloadCount).toBeGreaterThan(reloads));
    await eventually(async () => {
      expect(await requestThroughTcpService()).toMatch(/^HTTP\/1\.1 200 [\s\S]*ok$/);
      expect(await logLines(streamLogPath)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(`^tcp TCP 200 port=${tcpPort} up=127\\.0\\.0\\.1:\\d+ \\[tcp-default-app-80\\]$`),
          ),
        ]),
      );
    });
    // The HTTP log stays where access-log-path says, without the stream's lines.
    expect((await logLines()).some((line) => line.startsWith('tcp '))).toBe(false);
  });
});
