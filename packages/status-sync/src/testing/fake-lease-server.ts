import type { Clock } from '@ingresskit/task-queue';
import { ApiException, type V1Lease } from '@kubernetes/client-node';
import type { LeaseApi } from '../lease-client.js';

/** How one client's requests fare: answered, refused at once (network error), or never answered. */
export type ConnectionMode = 'ok' | 'refuse' | 'hang';

/** A client of the fake server with its own faults, so a test can cut one replica off. */
export interface FakeLeaseConnection extends LeaseApi {
  mode: ConnectionMode;
  /** Milliseconds before the server processes a request, and again before the answer arrives. */
  latencyMs: () => number;
}

/** An in-memory Lease store with kube-apiserver's optimistic concurrency and MicroTime validation. */
export interface FakeLeaseServer {
  connect(): FakeLeaseConnection;
  /** The stored Lease, or undefined. */
  lease(): V1Lease | undefined;
  /** Every accepted write (create or replace), oldest first. */
  readonly writes: V1Lease[];
  /** Replaces the stored spec as another writer would (bumps the resourceVersion). */
  overwrite(spec: NonNullable<V1Lease['spec']>): void;
}

const microTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Creates a fake Lease server whose request timing runs on `clock`. */
export function createFakeLeaseServer(clock: Clock): FakeLeaseServer {
  let stored: V1Lease | undefined;
  let resourceVersion = 100;
  const writes: V1Lease[] = [];

  const store = (lease: V1Lease): V1Lease => {
    resourceVersion += 1;
    stored = structuredClone({
      ...lease,
      metadata: { ...lease.metadata, resourceVersion: String(resourceVersion) },
    });
    writes.push(structuredClone(stored));
    return structuredClone(stored);
  };

  const validate = (lease: V1Lease): void => {
    for (const field of ['acquireTime', 'renewTime'] as const) {
      const value: unknown = lease.spec?.[field];
      if (value !== undefined && (typeof value !== 'string' || !microTime.test(value))) {
        throw apiError(
          400,
          'BadRequest',
          `spec.${field}: ${JSON.stringify(value)} is not a MicroTime with 6 digits`,
        );
      }
    }
  };

  const handlers: LeaseApi = {
    readNamespacedLease: () => {
      if (stored === undefined) return Promise.reject(apiError(404, 'NotFound', 'lease not found'));
      return Promise.resolve(structuredClone(stored));
    },
    createNamespacedLease: ({ body }) => {
      if (stored !== undefined) return Promise.reject(apiError(409, 'AlreadyExists', 'lease already exists'));
      validate(body);
      return Promise.resolve(store(body));
    },
    replaceNamespacedLease: ({ body }) => {
      if (stored === undefined) return Promise.reject(apiError(404, 'NotFound', 'lease not found'));
      if (body.metadata?.resourceVersion !== stored.metadata?.resourceVersion) {
        return Promise.reject(apiError(409, 'Conflict', 'the object has been modified'));
      }
      validate(body);
      return Promise.resolve(store(body));
    },
  };

  const connect = (): FakeLeaseConnection => {
    const connection: FakeLeaseConnection = {
      mode: 'ok',
      latencyMs: () => 0,
      readNamespacedLease: (param) => send(() => handlers.readNamespacedLease(param)),
      createNamespacedLease: (param) => send(() => handlers.createNamespacedLease(param)),
      replaceNamespacedLease: (param) => send(() => handlers.replaceNamespacedLease(param)),
    };
    const send = <T>(handle: () => Promise<T>): Promise<T> => {
      if (connection.mode === 'refuse') return Promise.reject(new TypeError('fetch failed'));
      if (connection.mode === 'hang') return new Promise<T>(() => {});
      return new Promise<T>((resolve, reject) => {
        clock.setTimer(connection.latencyMs(), () => {
          // The server decides now; the answer travels back for another latency.
          let outcome: Promise<T>;
          try {
            outcome = handle();
          } catch (error) {
            outcome = Promise.reject(error instanceof Error ? error : new Error(String(error)));
          }
          outcome.then(
            (value) => clock.setTimer(connection.latencyMs(), () => resolve(value)),
            (error: unknown) =>
              clock.setTimer(connection.latencyMs(), () =>
                reject(error instanceof Error ? error : new Error(String(error))),
              ),
          );
        });
      });
    };
    return connection;
  };

  return {
    connect,
    lease: () => (stored === undefined ? undefined : structuredClone(stored)),
    writes,
    overwrite: (spec) => {
      store({ ...(stored ?? { metadata: { name: 'lease', namespace: 'default' } }), spec });
    },
  };
}

/** An error shaped like @kubernetes/client-node's for a failed call. */
export function apiError(code: number, reason: string, message: string): ApiException<string> {
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    reason,
    message,
    code,
  });
  return new ApiException<string>(code, message, body, {});
}
