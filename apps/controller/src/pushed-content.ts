/**
 * What nginx's pushed data should be, as far as this controller knows: the version and content
 * digest its own last push answered. nginx keeps the digest up to date as it writes, and can
 * recompute it from what it stores. So two things show that the data changed behind the
 * controller's back: a push that did not start from the controller's last one (someone else wrote
 * on the control socket), and a recomputed digest that differs from the one the writes left (an
 * entry changed outside a push, or a push died half-way). Either way the controller reports the
 * drift and pushes everything again, which repairs it.
 */
import type { DataPlaneAccepted, DataPlaneDigest } from '@ingresskit/nginx-template';

interface Known {
  version: number;
  digest: string;
}

/** The version and digest nginx's pushed data should have, and the checks that it still has. */
export class PushedContent {
  #known: Known | undefined;

  /**
   * Takes the answer of a push. Returns why the data drifted before it, or undefined. A full push
   * replaces everything, so whatever came before it cannot matter afterwards.
   */
  accept(accepted: DataPlaneAccepted, full: boolean): string | undefined {
    const drift = full ? undefined : this.#driftBefore(accepted);
    this.#known = drift === undefined ? { version: accepted.version, digest: accepted.digest } : undefined;
    return drift;
  }

  #driftBefore(accepted: DataPlaneAccepted): string | undefined {
    const known = this.#known;
    if (known === undefined) return undefined;
    if (accepted.previousVersion !== known.version) return foreignPush(accepted.previousVersion, known);
    if (accepted.previousDigest !== known.digest)
      return `nginx's data changed between two pushes (digest ${accepted.previousDigest}, expected ${known.digest})`;
    return undefined;
  }

  /** Returns why the data nginx holds is not what the pushes left, or undefined. */
  check(current: DataPlaneDigest): string | undefined {
    if (current.digest !== current.stored)
      return `an entry of nginx's data changed outside a push (content digest ${current.digest}, pushes left ${current.stored})`;
    const known = this.#known;
    if (known === undefined) return undefined;
    if (current.version !== known.version) return foreignPush(current.version, known);
    if (current.digest !== known.digest)
      return `nginx's data is not what this controller pushed (digest ${current.digest}, expected ${known.digest})`;
    return undefined;
  }

  /** After a failed push or a restart: nothing is known until the next full push. */
  forget(): void {
    this.#known = undefined;
  }
}

function foreignPush(version: number, known: Known): string {
  return `nginx's data was changed by a push this controller did not make (version ${version}, expected ${known.version})`;
}
