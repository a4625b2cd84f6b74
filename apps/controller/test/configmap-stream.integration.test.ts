/**
 * The controller ConfigMap's proxy-stream-* keys end to end (local API server, the controller,
 * nginx, real TCP): proxy-stream-timeout closes an idle TCP service connection, a connection the
 * first endpoint refuses goes to the next one unless proxy-stream-next-upstream is "false" or
 * proxy-stream-next-upstream-tries is 1, and a bad value is refused with an Event.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { annotatedIngress, useAnnotationsCase } from './annotations.js';
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

const idlePort = await findFreePort();
const retryPort = await findFreePort();
// Round robin starts at the first endpoint, and nginx.conf lists them by port: the refusing one first.
const [refusingPort, answeringPort] = [await findFreePort(), await findFreePort()].sort((a, b) => a - b) as [
  number,
  number,
];
const tcpServers: Server[] = [];
const sockets = new Set<Socket>();

async function startTcpServer(port: number, onData: (socket: Socket, data: string) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (data) => onData(socket, String(data)));
  });
  tcpServers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(tcpServers.map((server) => new Promise((resolve) => server.close(resolve))));
});

const started = useAnnotationsCase({
  config: {
    podName: 'configmap-stream',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
    tcpServicesConfigMap: TCP_SERVICES_CONFIGMAP,
  },
  readyHost: 'stream.test',
  objects: async ({ listen }) => {
    const port = await listen((_incoming, response) => response.end('ok'));
    // Reads and never answers: only nginx's proxy_timeout ends its connections.
    const silentPort = await startTcpServer(0, () => undefined);
    await startTcpServer(answeringPort, (socket, data) => socket.end(`answered:${data}`));
    return [
      controllerConfigMapManifest({}),
      ...serviceManifests('app', []),
      endpointSliceManifest('app-1', 'app', port),
      annotatedIngress('stream.test', 'app', {}),
      ...serviceManifests('silent', []),
      endpointSliceManifest('silent-1', 'silent', silentPort),
      ...serviceManifests('pair', []),
      endpointSliceManifest('pair-refusing', 'pair', refusingPort),
      endpointSliceManifest('pair-answering', 'pair', answeringPort),
      tcpServicesConfigMapManifest({
        [String(idlePort)]: 'default/silent:80',
        [String(retryPort)]: 'default/pair:http',
      }),
    ];
  },
});

/**
 * Applies the controller ConfigMap and waits for nginx to run it: reloaded, with the workers
 * before gone (their upstream state, which endpoints failed, is their own).
 */
async function applyKeys(data: Record<string, string>, expected: string): Promise<void> {
  const { controller, server } = started();
  const workers = await controller.dataPlane.workerPids();
  await server.apply([controllerConfigMapManifest(data)]);
  await eventually(() => expect(controller.dataPlane.nginxConf).toContain(expected));
  await eventually(async () => {
    const now = await controller.dataPlane.workerPids();
    expect(now.length).toBeGreaterThan(0);
    expect(now.filter((pid) => workers.includes(pid))).toEqual([]);
  }, 10_000);
}

/** Connects to `port`, sends `text` and gives what came back once the connection closed, and after how long. */
function exchange(port: number, text: string, giveUpMs = 8000): Promise<{ answer: string; ms: number }> {
  return new Promise((resolve) => {
    const began = performance.now();
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(text));
    let answer = '';
    socket.setTimeout(giveUpMs, () => socket.destroy());
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('close', () => resolve({ answer, ms: performance.now() - began }));
    // nginx closing a connection whose data it did not read is a reset: closed all the same.
    socket.on('error', () => undefined);
  });
}

/** The answers of `count` connections made one after the other. */
async function answers(port: number, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let at = 0; at < count; at += 1) seen.push((await exchange(port, `c${at}`)).answer);
  return seen;
}

describe('controller ConfigMap proxy-stream keys', () => {
  it('closes an idle TCP connection after proxy-stream-timeout, not after the default 600 s', async () => {
    await eventually(async () => {
      const held = await exchange(idlePort, 'hello', 2500);
      // Still open when the client gave up: nginx's default timeout did not close it.
      expect(held.ms).toBeGreaterThanOrEqual(2400);
    });
    await applyKeys({ 'proxy-stream-timeout': '1s' }, 'proxy_timeout 1s;');
    const closed = await exchange(idlePort, 'hello');
    expect(closed.answer).toBe('');
    expect(closed.ms).toBeGreaterThanOrEqual(900);
    expect(closed.ms).toBeLessThan(4000);
  });

  it('passes a connection the first endpoint refuses to the next one', async () => {
    // A new nginx.conf: fresh workers, whose round robin starts at the refusing endpoint.
    await applyKeys({ 'proxy-stream-next-upstream-timeout': '5s' }, 'proxy_next_upstream_timeout 5s;');
    expect(await answers(retryPort, 4)).toEqual(['answered:c0', 'answered:c1', 'answered:c2', 'answered:c3']);
  });

  it('closes the connection instead with proxy-stream-next-upstream "false" or -tries 1', async () => {
    await applyKeys({ 'proxy-stream-next-upstream': 'false' }, 'proxy_next_upstream off;');
    // One of the first two tries the refusing endpoint (nginx then leaves it out for 10 s).
    const off = await answers(retryPort, 2);
    expect(off).toContain('');
    expect(off.filter((answer) => answer !== '')).toHaveLength(1);
    await applyKeys({ 'proxy-stream-next-upstream-tries': '1' }, 'proxy_next_upstream_tries 1;');
    const once = await answers(retryPort, 2);
    expect(once).toContain('');
    expect(once.filter((answer) => answer !== '')).toHaveLength(1);
  });

  it('refuses a bad value with an Event, keeping the last valid one', async () => {
    const { controller, server } = started();
    await server.apply([
      controllerConfigMapManifest({ 'proxy-stream-timeout': '1s', 'proxy-stream-responses': '1; deny all' }),
    ]);
    await eventually(async () =>
      expect(await listConfigMapEvents({ controller, server }, CONTROLLER_CONFIGMAP)).toContain(
        'InvalidConfiguration: data["proxy-stream-responses"]: "proxy-stream-responses" must be a whole number from 0 to 1000000; the default stays',
      ),
    );
    await eventually(() => expect(controller.dataPlane.nginxConf).toContain('proxy_timeout 1s;'));
    expect(controller.dataPlane.nginxConf).not.toContain('deny all');
  });
});
