/**
 * The TLS relay: TLS towards the backends of routes with a backend TLS policy, which nginx 1.22
 * could take only from nginx.conf. nginx speaks plain text to one unix socket per relay and
 * endpoint in `<prefix>/relay/` (see nginx-template's relaySocketName), and the relay opens TLS to
 * the endpoint with exactly the relay's settings. The sockets live in a worker thread
 * (tls-relay-worker.ts), so no byte of that traffic runs on the controller's event loop.
 *
 * Lifecycle: the data plane opens the sockets a push will name before it pushes
 * ({@link TlsRelay.open}) and closes those no route names once nginx has the push
 * ({@link TlsRelay.retain}). The directory is emptied at start, so a restarted controller makes
 * every socket again before its first push; while the controller is down, nothing listens and
 * these routes answer 502. When the worker dies, `onRestart` asks for a sync, whose open starts
 * a new one with every socket.
 */
import { chmod, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RELAY_SOCKET_DIRECTORY } from '@ingresskit/nginx-template';
import { TlsRelayError } from './errors.js';
import { silentLogger, type Logger } from './logger.js';
import type { RelayReply, RelayRequest, RelayWorkerData } from './tls-relay-messages.js';
import { relayConnectOptionsOf, type RelayConnectOptions } from './tls-relay-options.js';
import type { RelaySocket } from './tls-relay-plan.js';

/** Options of {@link TlsRelay}. */
export interface TlsRelayOptions {
  /** Where sockets it cannot make, refused connections and a dead worker are told; nowhere by default. */
  logger?: Logger;
  /** The worker died with its sockets: the next {@link TlsRelay.open} makes them again. */
  onRestart?: () => void;
  /** Least time between two logs of connections refused through one socket; 60 s by default. */
  refusalLogIntervalMs?: number;
}

// Run from source (tests, `pnpm demo`), the worker is TypeScript and needs tsx to load. Built,
// the thread's file sits next to this code: in this package's dist/, or next to a bundle that
// inlines this package and builds it too (see runTlsRelayWorker).
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './tls-relay-thread.ts' : './tls-relay-thread.js', import.meta.url);

/** The directory of the relay's sockets in `prefix`. */
export function relayDirectoryOf(prefix: string): string {
  return join(prefix, RELAY_SOCKET_DIRECTORY);
}

/** Each kind of `T` without its sequence number. */
type WithoutSeq<T> = T extends unknown ? Omit<T, 'seq'> : never;

/** The controller's side of the TLS relay: which sockets the worker has, and asking it for more or fewer. */
export class TlsRelay {
  readonly #options: TlsRelayOptions;
  readonly #logger: Logger;
  #directory = '';
  #worker: Worker | undefined;
  #seq = 0;
  readonly #pending = new Map<
    number,
    { resolve: (failed: { name: string; message: string }[]) => void; reject: (error: Error) => void }
  >();
  /** The sockets the worker listens on (or could not), by name. */
  readonly #sockets = new Map<string, { failed?: string }>();
  readonly #lastRefusalLog = new Map<string, number>();
  /** The connect timeout the worker has (or starts with) for relays without their own. */
  #connectTimeoutMs: number | undefined;
  #stopped = false;

  constructor(options: TlsRelayOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * Empties (or makes) the socket directory in `prefix`. The worker starts with the first socket:
   * a controller without backend TLS routes runs no thread for it.
   */
  async start(prefix: string): Promise<void> {
    this.#directory = relayDirectoryOf(prefix);
    await rm(this.#directory, { recursive: true, force: true });
    await mkdir(this.#directory, { recursive: true });
    // nginx's workers must reach the sockets, also as another user (nobody, when the controller
    // runs as root); only the controller's user can create or remove one.
    await chmod(this.#directory, 0o755);
  }

  /**
   * Makes the worker listen on every socket of `sockets` it does not listen on yet (the others
   * stay); relays without a connect timeout of their own wait `connectTimeoutMs`. A socket it
   * cannot make is logged and left out: its routes answer 502.
   */
  async open(sockets: ReadonlyMap<string, RelaySocket>, connectTimeoutMs: number): Promise<void> {
    const relays = new Map<string, RelayConnectOptions>();
    const specs: { name: string; relayId: string; address: string; port: number }[] = [];
    for (const [name, { relay, address, port }] of sockets) {
      if (this.#sockets.has(name)) continue;
      if (!relays.has(relay.id)) {
        const made = relayConnectOptionsOf(relay);
        if ('problem' in made) {
          this.#refuseSocket(name, made.problem);
          continue;
        }
        relays.set(relay.id, made.options);
      }
      specs.push({ name, relayId: relay.id, address, port });
    }
    const timeoutChanged = connectTimeoutMs !== this.#connectTimeoutMs;
    this.#connectTimeoutMs = connectTimeoutMs;
    // A worker that is not running yet starts with the timeout.
    if (specs.length === 0 && (!timeoutChanged || this.#worker === undefined)) return;
    const failed = await this.#ask({
      type: 'open',
      connectTimeoutMs,
      relays: [...relays].map(([id, options]) => ({ id, options })),
      sockets: specs,
    });
    const failures = new Map(failed.map(({ name, message }) => [name, message]));
    for (const { name } of specs) {
      const failure = failures.get(name);
      if (failure === undefined) this.#sockets.set(name, {});
      else this.#refuseSocket(name, failure);
    }
  }

  /** Closes every socket but those of `sockets`; connections already made finish. */
  async retain(sockets: ReadonlyMap<string, RelaySocket>): Promise<void> {
    const names = [...this.#sockets.keys()].filter((name) => !sockets.has(name));
    if (names.length === 0) return;
    for (const name of names) {
      this.#sockets.delete(name);
      this.#lastRefusalLog.delete(name);
    }
    if (this.#worker !== undefined) await this.#ask({ type: 'close', names });
  }

  /** Closes every socket and connection and stops the worker. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const worker = this.#worker;
    if (worker !== undefined) {
      await this.#ask({ type: 'stop' }).catch(() => undefined);
      await worker.terminate();
      this.#worker = undefined;
    }
    if (this.#directory !== '') await rm(this.#directory, { recursive: true, force: true });
  }

  #refuseSocket(name: string, message: string): void {
    this.#sockets.set(name, { failed: message });
    this.#logger.warn(
      { socket: name, reason: message },
      'the TLS relay cannot make a socket; requests through it get 502',
    );
  }

  #startWorker(): void {
    const workerData: RelayWorkerData = { role: 'ingresskit-tls-relay', directory: this.#directory };
    const worker = new Worker(WORKER_URL, {
      workerData,
      ...(FROM_SOURCE ? { execArgv: ['--import', 'tsx'] } : {}),
    });
    this.#worker = worker;
    worker.on('message', (reply: RelayReply) => this.#receive(reply));
    worker.on('error', (error) => this.#logger.error({ err: error }, 'the TLS relay failed'));
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      for (const { reject } of this.#pending.values()) reject(new TlsRelayError(`exited with code ${code}`));
      this.#pending.clear();
      this.#sockets.clear();
      if (this.#stopped) return;
      this.#logger.error({ code }, 'the TLS relay stopped; its sockets are made again');
      this.#options.onRestart?.();
    });
  }

  #receive(reply: RelayReply): void {
    if (reply.type === 'refused') {
      const now = performance.now();
      const last = this.#lastRefusalLog.get(reply.name);
      if (last !== undefined && now - last < (this.#options.refusalLogIntervalMs ?? 60_000)) return;
      this.#lastRefusalLog.set(reply.name, now);
      this.#logger.warn(
        { socket: reply.name, reason: reply.reason },
        'the TLS relay closed a connection it could not open to its backend as its settings say',
      );
      return;
    }
    const pending = this.#pending.get(reply.seq);
    this.#pending.delete(reply.seq);
    pending?.resolve(reply.failed);
  }

  #ask(request: WithoutSeq<RelayRequest>): Promise<{ name: string; message: string }[]> {
    if (this.#worker === undefined && request.type === 'open' && !this.#stopped) this.#startWorker();
    const worker = this.#worker;
    if (worker === undefined) return Promise.reject(new TlsRelayError('is not running'));
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#pending.set(seq, { resolve, reject });
      const message: RelayRequest = { ...request, seq };
      worker.postMessage(message);
    });
  }
}
