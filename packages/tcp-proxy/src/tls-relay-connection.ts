/**
 * One connection through the TLS relay: nginx's plain-text connection to a relay socket is
 * paused until TLS to the endpoint is up and passes verification, then bytes flow both ways with
 * backpressure (pipe), an end of either side is passed on (half-close), and an error or a close
 * of one side closes the other. A connection that cannot reach its backend as the relay's
 * settings say is closed before a byte of it is sent: nginx answers 502 (or tries another
 * endpoint), never over unverified TLS.
 */
import type { Socket } from 'node:net';
import { connect, type ConnectionOptions, type SecureContext } from 'node:tls';
import type { RelayConnectOptions } from './tls-relay-options.js';
import { refuseBackend, type BackendVerification } from './tls-relay-verification.js';

/** What a relay socket opens connections with. */
export interface RelayTarget {
  address: string;
  port: number;
  context: SecureContext;
  options: RelayConnectOptions;
  /** `options.verify` with the trust anchors of its CA certificates; absent: no verification. */
  verification: BackendVerification | undefined;
}

/**
 * Relays `plain` (accepted paused) to `target`. `track` sees both sockets (to close them on
 * stop), `onRefused` why a connection never reached its backend.
 */
export function relayConnection(
  plain: Socket,
  target: RelayTarget,
  defaultConnectTimeoutMs: number,
  track: (socket: Socket) => void,
  onRefused: (reason: string) => void,
): void {
  const { options, verification } = target;
  // tls.connect passes allowHalfOpen and noDelay to its socket; its type leaves them out.
  const connectOptions: ConnectionOptions & { allowHalfOpen: boolean; noDelay: boolean } = {
    host: target.address,
    port: target.port,
    secureContext: target.context,
    ...(options.servername === undefined ? {} : { servername: options.servername }),
    ...(options.ALPNProtocols === undefined ? {} : { ALPNProtocols: options.ALPNProtocols }),
    // Verification is refuseBackend's, with nginx's meaning of each setting, after the handshake.
    rejectUnauthorized: false,
    checkServerIdentity: () => undefined,
    allowHalfOpen: true,
    noDelay: true,
  };
  const backend = connect(connectOptions);
  track(plain);
  track(backend);
  let established = false;
  const closeBoth = () => {
    clearTimeout(timer);
    backend.destroy();
    plain.destroy();
  };
  const refuse = (reason: string) => {
    if (!established) onRefused(reason);
    closeBoth();
  };
  const timeoutMs = options.connectTimeoutMs ?? defaultConnectTimeoutMs;
  const timer = setTimeout(() => refuse(`no TLS connection within ${timeoutMs} ms`), timeoutMs);
  backend.once('secureConnect', () => {
    clearTimeout(timer);
    const reason =
      verification === undefined
        ? undefined
        : refuseBackend(verification, {
            authorized: backend.authorized,
            authorizationError: backend.authorizationError,
            peer: backend.getPeerCertificate(true),
          });
    if (reason !== undefined) {
      refuse(reason);
      return;
    }
    established = true;
    plain.pipe(backend);
    backend.pipe(plain);
  });
  backend.on('error', (error: Error) => refuse(error.message));
  // nginx gave up on the request (its client left, a timeout): nothing to report.
  plain.on('error', closeBoth);
  // Whatever the backend still sends has no one to go to.
  plain.on('close', () => {
    clearTimeout(timer);
    backend.destroy();
  });
  // After the backend's end, pipe ends plain once what it wrote is flushed; otherwise it is cut.
  backend.on('close', () => {
    if (!plain.writableEnded) plain.destroy();
  });
}
