/**
 * The TLS relay's worker thread (tls-relay.ts starts it on tls-relay-thread.ts): it listens on the
 * unix sockets the controller asks for and relays each connection (tls-relay-connection.ts), so
 * the bytes of backend TLS never run on the controller's event loop, where translation and health
 * checks do.
 * Requests are handled one after the other, in the order they came.
 */
import { unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createSecureContext, type SecureContext } from 'node:tls';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { relayConnection } from './tls-relay-connection.js';
import type { RelayReply, RelayRequest, RelaySocketSpec, RelayWorkerData } from './tls-relay-messages.js';
import type { RelayConnectOptions } from './tls-relay-options.js';
import { readTrustAnchors, type BackendVerification } from './tls-relay-verification.js';

interface Relay {
  context: SecureContext;
  options: RelayConnectOptions;
  verification: BackendVerification | undefined;
  /** Sockets listening with it: the context is dropped with the last. */
  sockets: number;
}

interface Listening {
  server: Server;
  relayId: string;
}

/** The sockets and connections of one worker. */
class RelayWorker {
  readonly #directory: string;
  readonly #port: MessagePort;
  readonly #relays = new Map<string, Relay>();
  readonly #listening = new Map<string, Listening>();
  readonly #connections = new Set<Socket>();
  #connectTimeoutMs = 5_000;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(directory: string, port: MessagePort) {
    this.#directory = directory;
    this.#port = port;
  }

  /** Handles `request` after those before it, then answers it. */
  receive(request: RelayRequest): void {
    this.#queue = this.#queue.then(async () => {
      const failed = await this.#handle(request).catch((error: unknown) => [
        { name: '', message: error instanceof Error ? error.message : String(error) },
      ]);
      this.#reply({ type: 'done', seq: request.seq, failed });
    });
  }

  async #handle(request: RelayRequest): Promise<{ name: string; message: string }[]> {
    if (request.type === 'open') {
      this.#connectTimeoutMs = request.connectTimeoutMs;
      const options = new Map(request.relays.map(({ id, options }) => [id, options]));
      const failed: { name: string; message: string }[] = [];
      for (const spec of request.sockets) {
        if (this.#listening.has(spec.name)) continue;
        const message = await this.#listen(spec, options.get(spec.relayId)).catch((error: unknown) =>
          error instanceof Error ? error.message : String(error),
        );
        if (message !== undefined) failed.push({ name: spec.name, message });
      }
      return failed;
    }
    if (request.type === 'close') {
      for (const name of request.names) this.#close(name);
      return [];
    }
    for (const name of [...this.#listening.keys()]) this.#close(name);
    for (const socket of this.#connections) socket.destroy();
    return [];
  }

  /** Listens on `spec`'s socket; resolves with why it cannot, or undefined. */
  async #listen(
    spec: RelaySocketSpec,
    options: RelayConnectOptions | undefined,
  ): Promise<string | undefined> {
    const relay = this.#relayOf(spec.relayId, options);
    if (typeof relay === 'string') return relay;
    const path = join(this.#directory, spec.name);
    // Left by a worker that died, which could not remove it.
    await unlink(path).catch(() => undefined);
    const target = {
      address: spec.address,
      port: spec.port,
      context: relay.context,
      options: relay.options,
      verification: relay.verification,
    };
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (plain) =>
      relayConnection(
        plain,
        target,
        this.#connectTimeoutMs,
        (socket) => this.#track(socket),
        (reason) => this.#reply({ type: 'refused', name: spec.name, reason }),
      ),
    );
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        // nginx's workers may run as another user than the controller (nobody, when it runs as root).
        server.listen({ path, readableAll: true, writableAll: true }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      if (relay.sockets === 0) this.#relays.delete(spec.relayId);
      throw error;
    }
    // A failed accept (too many open files, say) loses that connection only.
    server.on('error', () => undefined);
    relay.sockets += 1;
    this.#listening.set(spec.name, { server, relayId: spec.relayId });
    return undefined;
  }

  #relayOf(id: string, options: RelayConnectOptions | undefined): Relay | string {
    const known = this.#relays.get(id);
    if (known !== undefined) return known;
    if (options === undefined) return `no options for relay ${id}`;
    try {
      const context = createSecureContext(options.context);
      // Read once per relay, not per connection: the anchors its verification counts up to.
      const verification =
        options.verify === undefined
          ? undefined
          : { ...options.verify, anchors: readTrustAnchors(options.context.ca ?? '') };
      const relay: Relay = { context, options, verification, sockets: 0 };
      this.#relays.set(id, relay);
      return relay;
    } catch (error) {
      return `OpenSSL refuses the relay's settings: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /** Stops listening on `name` (which removes its file at once); its connections finish. */
  #close(name: string): void {
    const listening = this.#listening.get(name);
    if (listening === undefined) return;
    this.#listening.delete(name);
    const relay = this.#relays.get(listening.relayId);
    if (relay !== undefined && --relay.sockets === 0) this.#relays.delete(listening.relayId);
    listening.server.close();
  }

  #track(socket: Socket): void {
    this.#connections.add(socket);
    socket.once('close', () => this.#connections.delete(socket));
  }

  #reply(reply: RelayReply): void {
    this.#port.postMessage(reply);
  }
}

/**
 * Serves the TLS relay when this thread is the relay's worker (TlsRelay started it), and does
 * nothing elsewhere; whether it serves. `tls-relay-thread.js`, the file TlsRelay starts next to
 * its own code, calls it: a bundle that inlines this package builds that file next to itself
 * from a module that calls it too.
 */
export function runTlsRelayWorker(): boolean {
  const data = workerData as Partial<RelayWorkerData> | null;
  if (parentPort === null || data?.role !== 'ingresskit-tls-relay' || typeof data.directory !== 'string')
    return false;
  const port = parentPort;
  const worker = new RelayWorker(data.directory, port);
  port.on('message', (request: RelayRequest) => worker.receive(request));
  return true;
}
