/**
 * The ssl-passthrough proxy (`--enable-ssl-passthrough`), as ingress-nginx has it: a TCP server on
 * the HTTPS port reads each connection's ClientHello, sends a host whose Ingress asks for
 * passthrough to that Ingress's backend as it is (TLS ends there), and everything else to nginx's
 * HTTPS listener on a loopback port, prefixed with a PROXY protocol v1 line so nginx sees the
 * client's address. A client that sends no valid hello in time loses its own connection only.
 * With use-proxy-protocol a client (a load balancer) must first send a PROXY header, whose client
 * address is believed when the peer is trusted and goes on in the line sent to nginx.
 */
import { isIP, createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { MAX_CLIENT_HELLO_BYTES, parseClientHello } from './client-hello.js';
import { silentLogger, type Logger } from './logger.js';
import { createPeerMatcher, parseProxyProtocolHeader } from './proxy-protocol-header.js';

/** One address of a passthrough backend. */
export interface PassthroughEndpoint {
  address: string;
  port: number;
}

/** Passthrough backends by host name: exact names, and `*.example.com` for one more label. */
export type PassthroughHosts = ReadonlyMap<string, readonly PassthroughEndpoint[]>;

/** Options of {@link SslPassthroughProxy}. */
export interface SslPassthroughProxyOptions {
  /** Where clients connect: the HTTPS port (0 picks a free one, for tests). */
  port: number;
  /** Address to listen on; all addresses when undefined. */
  host?: string | undefined;
  /** nginx's HTTPS listener on 127.0.0.1, which must take the PROXY protocol (`proxy_protocol`). */
  nginxPort: number;
  /** Where refused connections and failed backends are told; nowhere by default. */
  logger?: Logger;
  /** How long a client may take to send its ClientHello; 10 s by default. */
  helloTimeoutMs?: number;
  /** How long connecting to a backend or nginx may take; 5 s by default. */
  connectTimeoutMs?: number;
  /** Most connections open at once; more are refused at accept. 16384 by default. */
  maxConnections?: number;
  /** Whether nginx serves exactly this server name (see findPassthroughEndpoints); none by default. */
  servesHostname?: (hostname: string) => boolean;
}

/** The PROXY protocol clients send first (ingress-nginx's use-proxy-protocol). */
export interface PassthroughProxyProtocol {
  /** Peers whose header's client address is believed (proxy-real-ip-cidr); others keep their own. */
  trustedNetworks: readonly string[];
  /** How long a client may take to send its header (proxy-protocol-header-timeout). */
  headerTimeoutMs: number;
}

/** Counters of what the proxy did, for tests and metrics. */
export interface PassthroughCounters {
  passedThrough: number;
  toNginx: number;
  /** Connections closed for a malformed, oversized or missing ClientHello (or PROXY header). */
  refused: number;
}

/**
 * The PROXY protocol v1 line for a connection from `source` to `destination` (addresses as Node
 * gives them: IPv4-mapped IPv6 is written as IPv4). `PROXY UNKNOWN` when an address is missing.
 */
export function formatProxyProtocolV1(
  source: { address: string | undefined; port: number | undefined },
  destination: { address: string | undefined; port: number | undefined },
): string {
  const from = unmapped(source.address);
  const to = unmapped(destination.address);
  if (from === undefined || to === undefined || source.port === undefined || destination.port === undefined)
    return 'PROXY UNKNOWN\r\n';
  const v4 = isIP(from) === 4 && isIP(to) === 4;
  const family = v4 ? 'TCP4' : 'TCP6';
  // Both addresses must be of the line's family: an IPv4 one goes into a TCP6 line mapped.
  const inFamily = (address: string) => (v4 || isIP(address) === 6 ? address : `::ffff:${address}`);
  return `PROXY ${family} ${inFamily(from)} ${inFamily(to)} ${source.port} ${destination.port}\r\n`;
}

function unmapped(address: string | undefined): string | undefined {
  if (address === undefined || isIP(address) === 0) return undefined;
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match === null ? address : match[1];
}

/**
 * The endpoints `serverName` passes through to, by exact name and then by wildcard: the most
 * specific match across the passthrough hosts and the names nginx serves, so a `*.` passthrough
 * host never takes a name nginx serves exactly (`servesHostname`), whoever's it is. Host ownership
 * has already given each passthrough host to the namespace that owns it.
 */
export function findPassthroughEndpoints(
  hosts: PassthroughHosts,
  serverName: string | undefined,
  servesHostname: (hostname: string) => boolean = () => false,
): readonly PassthroughEndpoint[] | undefined {
  if (serverName === undefined) return undefined;
  const exact = hosts.get(serverName);
  if (exact !== undefined) return exact;
  const dot = serverName.indexOf('.');
  if (dot < 0 || servesHostname(serverName)) return undefined;
  return hosts.get(`*${serverName.slice(dot)}`);
}

/** The TCP server on the HTTPS port that sends each connection where its server name says. */
export class SslPassthroughProxy {
  readonly #options: SslPassthroughProxyOptions;
  readonly #logger: Logger;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #hosts: PassthroughHosts = new Map();
  #proxyProtocol:
    (PassthroughProxyProtocol & { isTrusted: (peer: string | undefined) => boolean }) | undefined;
  #next = 0;
  readonly counters: PassthroughCounters = { passedThrough: 0, toNginx: 0, refused: 0 };

  constructor(options: SslPassthroughProxyOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#server = createServer({ pauseOnConnect: false, noDelay: true }, (socket) => this.#accept(socket));
    this.#server.maxConnections = options.maxConnections ?? 16384;
  }

  /** The port clients connect to (after `start()`). */
  get port(): number {
    return (this.#server.address() as AddressInfo | null)?.port ?? this.#options.port;
  }

  /** Replaces the passthrough hosts; connections already passed through keep their backend. */
  setHosts(hosts: PassthroughHosts): void {
    this.#hosts = hosts;
  }

  /**
   * Makes new connections start with a PROXY header (v1 or v2), or not (undefined); connections
   * already accepted keep what they started with.
   */
  setProxyProtocol(settings: PassthroughProxyProtocol | undefined): void {
    this.#proxyProtocol =
      settings === undefined
        ? undefined
        : { ...settings, isTrusted: createPeerMatcher(settings.trustedNetworks) };
  }

  /** Listens on the HTTPS port; rejects when it cannot (the port is taken, say). */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen({ port: this.#options.port, host: this.#options.host }, () => {
        this.#server.off('error', reject);
        this.#server.on('error', (error) =>
          this.#logger.error({ err: error }, 'ssl-passthrough proxy failed'),
        );
        resolve();
      });
    });
  }

  /** Stops listening and closes every connection it carries. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  #accept(client: Socket): void {
    this.#track(client);
    const chunks: Buffer[] = [];
    let received = 0;
    // Parsing again only once the bytes it waits for are here keeps a client that sends one byte
    // at a time from costing a parse of everything so far per byte.
    let needed = 1;
    // Who the client is, as the PROXY line to nginx says: the peer, or whom a trusted header names.
    let source = { address: client.remoteAddress, port: client.remotePort };
    let destination = { address: client.localAddress, port: client.localPort };
    const proxyProtocol = this.#proxyProtocol;
    let awaitingHeader = proxyProtocol !== undefined;
    const refuse = (reason: string) => {
      this.counters.refused += 1;
      this.#logger.debug({ client: client.remoteAddress, reason }, 'ssl-passthrough: connection closed');
      client.destroy();
    };
    const timer = setTimeout(() => refuse('no ClientHello in time'), this.#options.helloTimeoutMs ?? 10_000);
    const headerTimer =
      proxyProtocol === undefined
        ? undefined
        : setTimeout(() => refuse('no PROXY header in time'), proxyProtocol.headerTimeoutMs);
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(headerTimer);
      client.off('data', onData);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < needed) return;
      let head = Buffer.concat(chunks, received);
      if (awaitingHeader) {
        const header = parseProxyProtocolHeader(head);
        if (header.state === 'incomplete') {
          chunks.splice(0, chunks.length, head);
          needed = header.needed;
          return;
        }
        if (header.state === 'invalid') {
          finish();
          refuse(header.reason);
          return;
        }
        clearTimeout(headerTimer);
        awaitingHeader = false;
        // As nginx's realip module: the header's client only when the peer is trusted.
        if (header.source !== undefined && proxyProtocol!.isTrusted(client.remoteAddress)) {
          source = header.source;
          destination = header.destination!;
        }
        head = head.subarray(header.length);
        received = head.length;
        needed = 1;
        if (received === 0) {
          chunks.splice(0, chunks.length);
          return;
        }
      }
      chunks.splice(0, chunks.length, head);
      const parsed = parseClientHello(head);
      if (parsed.state === 'incomplete' && received <= MAX_CLIENT_HELLO_BYTES * 2) {
        needed = parsed.needed;
        return;
      }
      finish();
      if (parsed.state !== 'complete') {
        refuse(parsed.state === 'invalid' ? parsed.reason : 'ClientHello too long');
        return;
      }
      client.pause();
      const endpoints = findPassthroughEndpoints(
        this.#hosts,
        parsed.serverName,
        this.#options.servesHostname,
      );
      if (endpoints === undefined) {
        this.counters.toNginx += 1;
        const line = formatProxyProtocolV1(source, destination);
        this.#connect(client, { address: '127.0.0.1', port: this.#options.nginxPort }, [
          Buffer.from(line),
          head,
        ]);
        return;
      }
      if (endpoints.length === 0) {
        refuse(`no ready endpoint for ${parsed.serverName ?? ''}`);
        return;
      }
      this.counters.passedThrough += 1;
      const endpoint = endpoints[this.#next++ % endpoints.length]!;
      this.#connect(client, endpoint, [head]);
    };
    client.on('data', onData);
    client.on('error', () => {
      finish();
      client.destroy();
    });
    client.on('close', finish);
  }

  /** Connects to `target`, writes `first`, then pipes both ways until either side closes. */
  #connect(client: Socket, target: PassthroughEndpoint, first: Buffer[]): void {
    const upstream = createConnection({ host: target.address, port: target.port, noDelay: true });
    this.#track(upstream);
    const connectTimer = setTimeout(
      () => upstream.destroy(new Error('connect timeout')),
      this.#options.connectTimeoutMs ?? 5_000,
    );
    const closeBoth = () => {
      clearTimeout(connectTimer);
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', (error) => {
      this.#logger.debug(
        { backend: `${target.address}:${target.port}`, err: error },
        'ssl-passthrough: backend connection failed',
      );
      closeBoth();
    });
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
    upstream.once('connect', () => {
      clearTimeout(connectTimer);
      for (const chunk of first) upstream.write(chunk);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }
}
