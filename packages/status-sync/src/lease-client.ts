/**
 * Access to one election's Lease through the Kubernetes API: a missing Lease and a lost race (409)
 * are values, every other failure is a LeaseRequestError naming the Lease.
 */
import type { Clock, WallClock } from '@ingresskit/task-queue';
import type { V1Lease, V1LeaseSpec } from '@kubernetes/client-node';
import { statusCodeOf } from './api-errors.js';
import { LeaseRequestError } from './errors.js';
import { buildReleasedSpec } from './lease-record.js';
import { withTimeout } from './timeout.js';

/** The Lease calls the elector makes; `CoordinationV1Api` from @kubernetes/client-node satisfies it. */
export interface LeaseApi {
  readNamespacedLease(param: { name: string; namespace: string }): Promise<V1Lease>;
  createNamespacedLease(param: { namespace: string; body: V1Lease }): Promise<V1Lease>;
  replaceNamespacedLease(param: { name: string; namespace: string; body: V1Lease }): Promise<V1Lease>;
}

/** What a create or replace did: `conflict` means another replica wrote first. */
export type LeaseWriteResult =
  { readonly kind: 'written'; readonly lease: V1Lease } | { readonly kind: 'conflict' };

/** Options of {@link createLeaseClient}. */
export interface LeaseClientOptions {
  api: LeaseApi;
  namespace: string;
  name: string;
  /** Times the release's requests. */
  clock: Clock;
  /** Stamps the released Lease (a MicroTime the API server and other replicas read). */
  wallClock: WallClock;
  /** Limit for each request `release` makes. */
  timeoutMs: number;
}

/** One Lease's reads and writes; see {@link createLeaseClient}. */
export interface LeaseClient {
  /** `Lease namespace/name`, after `verb` when given; for messages. */
  describe(verb?: string): string;
  /** The Lease, or undefined when it does not exist. */
  read(): Promise<V1Lease | undefined>;
  /** Creates the Lease with `spec`. */
  create(spec: V1LeaseSpec): Promise<LeaseWriteResult>;
  /** Replaces the Lease with `body`, guarded by its `resourceVersion`. */
  replace(body: V1Lease): Promise<LeaseWriteResult>;
  /**
   * Gives the Lease up when it names `identity`, re-reading after each conflict (three at most);
   * returns the released Lease, or undefined when it was gone or named someone else already.
   */
  release(identity: string): Promise<V1Lease | undefined>;
}

const maxReleaseConflicts = 3;

/** Creates the client of Lease `namespace/name`; it holds no state and starts no timers of its own. */
export function createLeaseClient(options: LeaseClientOptions): LeaseClient {
  const { api, namespace, name, clock, wallClock, timeoutMs } = options;
  const describe = (verb?: string): string => {
    const lease = `Lease ${namespace}/${name}`;
    return verb === undefined ? lease : `${verb} ${lease}`;
  };

  const read = async (): Promise<V1Lease | undefined> => {
    try {
      return await api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (statusCodeOf(error) === 404) return undefined;
      throw new LeaseRequestError(`reading ${describe()} failed`, { cause: error });
    }
  };

  const create = async (spec: V1LeaseSpec): Promise<LeaseWriteResult> => {
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace },
      spec,
    };
    try {
      return { kind: 'written', lease: await api.createNamespacedLease({ namespace, body }) };
    } catch (error) {
      if (statusCodeOf(error) === 409) return { kind: 'conflict' };
      throw new LeaseRequestError(`creating ${describe()} failed`, { cause: error });
    }
  };

  const replace = async (body: V1Lease): Promise<LeaseWriteResult> => {
    try {
      return { kind: 'written', lease: await api.replaceNamespacedLease({ name, namespace, body }) };
    } catch (error) {
      if (statusCodeOf(error) === 409) return { kind: 'conflict' };
      throw new LeaseRequestError(`updating ${describe()} failed`, { cause: error });
    }
  };

  const release = async (identity: string): Promise<V1Lease | undefined> => {
    for (let conflicts = 0; conflicts < maxReleaseConflicts; conflicts++) {
      let lease: V1Lease;
      try {
        lease = await withTimeout(
          api.readNamespacedLease({ name, namespace }),
          timeoutMs,
          clock,
          describe('reading'),
        );
      } catch (error) {
        if (statusCodeOf(error) === 404) return undefined;
        throw new LeaseRequestError(`reading ${describe()} to release it failed`, { cause: error });
      }
      // Never clobber a record that already names someone else.
      if (lease.spec?.holderIdentity !== identity) return undefined;
      const body: V1Lease = { ...lease, spec: buildReleasedSpec(lease.spec, wallClock()) };
      try {
        return await withTimeout(
          api.replaceNamespacedLease({ name, namespace, body }),
          timeoutMs,
          clock,
          describe('releasing'),
        );
      } catch (error) {
        if (statusCodeOf(error) !== 409) {
          throw new LeaseRequestError(`releasing ${describe()} failed`, { cause: error });
        }
      }
    }
    throw new LeaseRequestError(`releasing ${describe()} failed: ${maxReleaseConflicts} conflicts in a row`);
  };

  return { describe, read, create, replace, release };
}
