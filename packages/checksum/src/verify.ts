/**
 * Whether the ids computed here match the newest published checksum object, and which ids differ
 * when they do not.
 */
import { hashSortedIds } from './compute.js';
import { diffIds, type IdDiff } from './diff.js';

/**
 * A published IngressCheckSum or SecretCheckSum as read from the API server: typed client objects
 * (`creationTimestamp` a Date) and plain JSON (timestamps as strings) both fit.
 */
export interface ChecksumObjectLike {
  kind?: string | undefined;
  metadata?:
    | {
        name?: string | undefined;
        namespace?: string | undefined;
        creationTimestamp?: Date | string | undefined;
      }
    | undefined;
  spec?:
    | {
        checksum?: string | undefined;
        ids?: readonly string[] | undefined;
      }
    | undefined;
}

/** Which checksum object a verification compared with. */
export interface ChecksumObjectRef {
  kind: string;
  namespace: string | undefined;
  name: string | undefined;
}

/** Outcome of {@link verifyChecksum}. */
export interface ChecksumVerification {
  /** True when the local ids match the newest checksum object, or when there is none to check. */
  ok: boolean;
  /** False when no checksum object exists, so nothing was compared. */
  checked: boolean;
  /** The checksum of the local ids. */
  checksum: string;
  /** The newest object's `spec.checksum`; undefined when unchecked or when the object has none. */
  expected: string | undefined;
  /** The newest checksum object, the one compared with. */
  object: ChecksumObjectRef | undefined;
  /** Ids on one side only; both lists are empty unless the checksums differ. */
  diff: IdDiff;
  /** One or two plain sentences for logs and Events. */
  message: string;
}

const listedIdsInMessage = 10;

/**
 * Compares the locally computed ids with the newest checksum object (latest
 * `metadata.creationTimestamp`, ties broken by ascending `namespace/name`; objects without a
 * timestamp count as oldest). With no object there is nothing to check and the result is ok.
 *
 * Differences from Tengine-Ingress, on purpose: an empty local set is verified like any other
 * (Tengine lets it through unchecked); only the newest object counts (Tengine accepts a match with
 * any object, so a stale one can pass); and the caller passes the objects as they are now, so an
 * edited object counts (Tengine's informer ignores updates).
 */
export function verifyChecksum(
  localIds: Iterable<string>,
  checksumObjects: Iterable<ChecksumObjectLike>,
): ChecksumVerification {
  const sortedLocal = [...localIds].sort();
  const checksum = hashSortedIds(sortedLocal);
  const objects = [...checksumObjects];
  const newest = pickNewest(objects);
  const noDiff: IdDiff = { localOnly: [], publishedOnly: [] };

  if (newest === undefined) {
    return {
      ok: true,
      checked: false,
      checksum,
      expected: undefined,
      object: undefined,
      diff: noDiff,
      message: `No checksum object is published, so nothing was checked (local checksum ${checksum} of ${countIds(sortedLocal.length)}).`,
    };
  }

  const object = describeObject(newest);
  const subject = formatRef(object);
  const expected = newest.spec?.checksum;
  if (expected === checksum) {
    return {
      ok: true,
      checked: true,
      checksum,
      expected,
      object,
      diff: noDiff,
      message: `The ${countIds(sortedLocal.length)} computed here match ${subject} (checksum ${checksum}).`,
    };
  }

  const published = newest.spec?.ids ?? [];
  const diff = diffIds(sortedLocal, published);
  const sentences = [
    expected === undefined
      ? `${subject} has no spec.checksum, so the ${countIds(sortedLocal.length)} computed here (checksum ${checksum}) cannot match it.`
      : `The ${countIds(sortedLocal.length)} computed here hash to ${checksum}, but ${subject} says ${expected}.`,
  ];
  if (diff.localOnly.length > 0 || diff.publishedOnly.length > 0) {
    sentences.push(
      `Only here: ${formatIds(diff.localOnly)}; only in ${object.kind}: ${formatIds(diff.publishedOnly)}.`,
    );
  } else if (expected !== undefined) {
    sentences.push(`Both sides list the same ids, so ${subject}'s checksum does not match its own ids.`);
  }
  const olderMatch = objects.find(
    (candidate) => candidate !== newest && candidate.spec?.checksum === checksum,
  );
  if (olderMatch !== undefined) {
    sentences.push(
      `The older ${formatRef(describeObject(olderMatch))} matches; the local state has not caught up with the newest one yet.`,
    );
  }
  return { ok: false, checked: true, checksum, expected, object, diff, message: sentences.join(' ') };
}

function pickNewest(objects: readonly ChecksumObjectLike[]): ChecksumObjectLike | undefined {
  let newest: ChecksumObjectLike | undefined;
  let newestTime = Number.NEGATIVE_INFINITY;
  let newestKey = '';
  for (const object of objects) {
    const time = readTime(object.metadata?.creationTimestamp);
    const key = `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
    if (newest === undefined || time > newestTime || (time === newestTime && key < newestKey)) {
      newest = object;
      newestTime = time;
      newestKey = key;
    }
  }
  return newest;
}

function readTime(timestamp: Date | string | undefined): number {
  const time = timestamp instanceof Date ? timestamp.getTime() : Date.parse(timestamp ?? '');
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}

function describeObject(object: ChecksumObjectLike): ChecksumObjectRef {
  return {
    kind: object.kind ?? 'checksum object',
    namespace: object.metadata?.namespace,
    name: object.metadata?.name,
  };
}

function formatRef(ref: ChecksumObjectRef): string {
  const name = ref.name ?? '(unnamed)';
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/${name}` : name}`;
}

function formatIds(ids: readonly string[]): string {
  if (ids.length === 0) return 'none';
  const shown = ids.slice(0, listedIdsInMessage).join(', ');
  return ids.length > listedIdsInMessage ? `${shown} (+${ids.length - listedIdsInMessage} more)` : shown;
}

function countIds(count: number): string {
  return count === 1 ? '1 id' : `${count} ids`;
}
