/**
 * The controller ConfigMap's http-level keys end to end (local API server, the controller, nginx,
 * real HTTP and TLS): large-client-header-buffers refuses a big header, enable-underscores-in-headers
 * passes x_foo on, enable-brotli compresses, use-http2 "false" offers no h2, the session ticket
 * key lands in a file only nginx's user reads, error-log-path takes nginx's error log, and a bad
 * value, refused by the controller or by nginx -t, keeps the last good nginx.conf.
 */
import { randomBytes } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { annotatedIngress, useAnnotationsCase } from './annotations.js';
import { probe } from '../src/http-probe.js';
import {
  controllerConfigMapManifest,
  CONTROLLER_CONFIGMAP,
  endpointSliceManifest,
  eventually,
  listConfigMapEvents,
  serviceManifests,
} from './harness.js';

const HOST = 'tuned.test';

const started = useAnnotationsCase({
  config: {
    podName: 'configmap-http-settings',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
  },
  readyHost: HOST,
  objects: async ({ listen }) => {
    // Answers the x_foo header it received (or "none"), as text long enough to compress.
    const port = await listen((incoming, response) => {
      response.setHeader('content-type', 'text/plain');
      response.end(`x_foo=${String(incoming.headers['x_foo'] ?? 'none')} ${'padding '.repeat(40)}`);
    });
    return [
      controllerConfigMapManifest({}),
      ...serviceManifests('app', []),
      endpointSliceManifest('app-1', 'app', port),
      annotatedIngress(HOST, 'app', {}),
    ];
  },
});

function get(headers: Record<string, string> = {}) {
  return probe({ port: started().controller.config.httpPort, host: HOST, path: '/', headers });
}

async function apply(data: Record<string, string>): Promise<void> {
  const { controller, server } = started();
  const reloads = controller.dataPlane.reloadCount;
  await server.apply([controllerConfigMapManifest(data)]);
  await eventually(() => expect(controller.dataPlane.reloadCount).toBeGreaterThan(reloads));
}

/** The protocol nginx's HTTPS listener chooses by ALPN when offered h2 and http/1.1. */
function negotiatedProtocol(): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      {
        host: '127.0.0.1',
        port: started().controller.config.httpsPort,
        servername: HOST,
        ALPNProtocols: ['h2', 'http/1.1'],
        rejectUnauthorized: false,
      },
      () => {
        resolve(socket.alpnProtocol ?? false);
        socket.end();
      },
    );
    socket.on('error', reject);
  });
}

const BIG_HEADER = { 'x-big': 'b'.repeat(3000) };

describe('controller ConfigMap http settings', () => {
  it('refuses a header larger than large-client-header-buffers allows, and takes it by default', async () => {
    expect((await get(BIG_HEADER)).status).toBe(200);
    await apply({ 'large-client-header-buffers': '2 1k' });
    expect((await get(BIG_HEADER)).status).toBe(400);
    expect((await get()).status).toBe(200);
  });

  it('keeps the last valid value of a hostile one, with an Event', async () => {
    await apply({ 'large-client-header-buffers': '2 1k', 'client-body-timeout': '30' });
    const { controller, server } = started();
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([
      controllerConfigMapManifest({
        'large-client-header-buffers': '2 1k; include /etc/passwd',
        'client-body-timeout': '30',
      }),
    ]);
    await eventually(async () =>
      expect(await listConfigMapEvents(started(), CONTROLLER_CONFIGMAP)).toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            'data["large-client-header-buffers"]: "large-client-header-buffers" must be a number of buffers',
          ),
        ]),
      ),
    );
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect((await get(BIG_HEADER)).status).toBe(400);
  });

  it('passes a header with an underscore on only with enable-underscores-in-headers', async () => {
    await apply({ 'enable-underscores-in-headers': 'false' });
    expect((await get({ x_foo: 'bar' })).body).toMatch(/^x_foo=none /);
    await apply({ 'enable-underscores-in-headers': 'true' });
    expect((await get({ x_foo: 'bar' })).body).toMatch(/^x_foo=bar /);
  });

  it('compresses with brotli when enable-brotli is "true"', async () => {
    await apply({ 'enable-brotli': 'false', 'use-gzip': 'false' });
    expect((await get({ 'accept-encoding': 'br' })).headers['content-encoding']).toBeUndefined();
    await apply({ 'enable-brotli': 'true', 'brotli-types': 'text/plain' });
    const response = await get({ 'accept-encoding': 'br' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
  });

  it('offers h2 by ALPN unless use-http2 is "false"', async () => {
    await apply({ 'use-http2': 'true' });
    expect(await negotiatedProtocol()).toBe('h2');
    await apply({ 'use-http2': 'false' });
    expect(await negotiatedProtocol()).toBe('http/1.1');
  });

  it('writes ssl-session-ticket-key into a file only its owner reads, and removes the key it replaces', async () => {
    const certs = join(started().controller.dataPlane.prefix, 'certs');
    const ticketKeys = async () =>
      (await readdir(certs)).filter((file) => file.startsWith('session-ticket-'));
    const first = randomBytes(80);
    await apply({ 'ssl-session-tickets': 'true', 'ssl-session-ticket-key': first.toString('base64') });
    const [name] = await ticketKeys();
    expect(name).toBeDefined();
    expect((await readFile(join(certs, name!))).equals(first)).toBe(true);
    expect((await stat(join(certs, name!))).mode & 0o077).toBe(0);
    expect(await negotiatedProtocol()).toBe('h2');
    const second = randomBytes(48);
    await apply({ 'ssl-session-tickets': 'true', 'ssl-session-ticket-key': second.toString('base64') });
    const names = await ticketKeys();
    expect(names).toHaveLength(1);
    expect((await readFile(join(certs, names[0]!))).equals(second)).toBe(true);
  });

  it('writes the error log to error-log-path', async () => {
    const errorLog = join(started().controller.dataPlane.prefix, 'logs-error.log');
    await apply({ 'error-log-path': errorLog, 'error-log-level': 'info' });
    // nginx logs each connection a client closes before sending a request at info.
    await new Promise<void>((resolve, reject) => {
      const socket = createConnection(started().controller.config.httpPort, '127.0.0.1', () => {
        socket.end();
        resolve();
      });
      socket.on('error', reject);
    });
    await eventually(async () => expect(await readFile(errorLog, 'utf8')).toMatch(/\[info\]/));
  });

  it('keeps the running nginx.conf when nginx -t refuses a bind-address it cannot bind', async () => {
    const { controller, server } = started();
    expect((await get()).status).toBe(200);
    const reloads = controller.dataPlane.reloadCount;
    const rejected = join(controller.dataPlane.prefix, 'nginx.conf.rejected');
    await server.apply([controllerConfigMapManifest({ 'bind-address': '192.0.2.1' })]);
    await eventually(async () => expect(await readFile(rejected, 'utf8')).toContain('listen "192.0.2.1:'));
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect((await get()).status).toBe(200);
  });
});
