/**
 * The Tengine-compatible consistency gate: the ids of the owned Ingresses must match the newest
 * IngressCheckSum before a change is served. Ids are kept per Ingress and recomputed only for the
 * Ingresses that changed.
 */
import { ingressConfigId, verifyChecksum, type ChecksumVerification } from '@ingresskit/checksum';
import type { CustomObject, Ingress } from '@ingresskit/store';

/** The gate's verdict on one sync. */
export interface ChecksumVerdict extends ChecksumVerification {
  /** Ids of the owned Ingresses that take part, sorted. */
  ids: string[];
  /** Owned Ingresses that do not take part, and why. */
  skipped: { key: string; message: string }[];
}

type IdResult = { id: string } | { skipped: string };

/** Holds a change back until the owned Ingresses' ids match the newest IngressCheckSum. */
export class ChecksumGate {
  readonly #ids = new Map<string, IdResult>();

  /** Records the Ingress `key` as owned (`ingress`) or not (undefined). */
  update(key: string, ingress: Ingress | undefined): void {
    if (ingress === undefined) {
      this.#ids.delete(key);
      return;
    }
    const result = ingressConfigId(ingress);
    this.#ids.set(key, result.id === undefined ? { skipped: result.message } : { id: result.id });
  }

  /** Verifies the owned Ingresses against the published IngressCheckSum objects. */
  verify(published: readonly CustomObject[]): ChecksumVerdict {
    const ids: string[] = [];
    const skipped: { key: string; message: string }[] = [];
    for (const [key, result] of this.#ids) {
      if ('id' in result) ids.push(result.id);
      else skipped.push({ key, message: result.skipped });
    }
    ids.sort();
    return { ...verifyChecksum(ids, published), ids, skipped };
  }
}
