/** What the TLS relay's worker thread and the controller say to each other (see tls-relay.ts). */
import type { RelayConnectOptions } from './tls-relay-options.js';

/** A socket the worker listens on: relay `relayId` towards `address`:`port`. */
export interface RelaySocketSpec {
  name: string;
  relayId: string;
  address: string;
  port: number;
}

/** What the controller asks; each request is answered by a `done` with its `seq`, in order. */
export type RelayRequest =
  /** Listen on `sockets` too (those already listening stay as they are); `relays` has their options. */
  | {
      type: 'open';
      seq: number;
      /** The connect timeout of relays without their own. */
      connectTimeoutMs: number;
      relays: { id: string; options: RelayConnectOptions }[];
      sockets: RelaySocketSpec[];
    }
  /** Stop listening on `names`; connections already made finish. */
  | { type: 'close'; seq: number; names: string[] }
  /** Close every socket and connection. */
  | { type: 'stop'; seq: number };

/** What the worker says. */
export type RelayReply =
  /** `failed`: sockets of an open request the worker could not listen on, with why. */
  | { type: 'done'; seq: number; failed: { name: string; message: string }[] }
  /** A connection through socket `name` was closed without reaching its backend. */
  | { type: 'refused'; name: string; reason: string };

/** The workerData of the relay's worker. */
export interface RelayWorkerData {
  role: 'ingresskit-tls-relay';
  /** The directory of the sockets. */
  directory: string;
}
