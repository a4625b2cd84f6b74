/**
 * The route table's TLS side: the certificate binding of each hostname as of the last commit, the
 * claims each binding overrode, and the certificates still bound to some hostname (counted).
 */
import { assembleTlsBinding, type SourcedTlsClaim } from './assemble.js';
import { isDeepEqual } from './equal.js';
import type { AssemblyNote, Certificate, RouteOrigin, RouteTableDelta, TlsBinding } from './types.js';

/**
 * The certificate id of a binding that keeps an exact name from the `*.` binding one label up
 * (owned by another tenant): the data plane serves the name the `*` binding instead.
 */
export const NO_CERTIFICATE = '';

interface CertificateEntry {
  certificate: Certificate;
  bindings: number;
}

/** Bindings and certificates, changed one hostname at a time by {@link TlsBindings.commitHost}. */
export class TlsBindings {
  readonly #bindings = new Map<string, TlsBinding>();
  readonly #notes = new Map<string, AssemblyNote[]>();
  readonly #certificates = new Map<string, CertificateEntry>();

  /** The binding of each hostname. */
  bindings(): ReadonlyMap<string, TlsBinding> {
    return this.#bindings;
  }

  /** A new map of each bound certificate by id. */
  certificates(): Map<string, Certificate> {
    return new Map([...this.#certificates].map(([id, entry]) => [id, entry.certificate]));
  }

  /** A snapshot of the bound certificate ids, for {@link diffCertificates} after the commit. */
  certificateIds(): Set<string> {
    return new Set(this.#certificates.keys());
  }

  /** Each hostname's overridden claims. */
  notes(): IterableIterator<AssemblyNote[]> {
    return this.#notes.values();
  }

  /**
   * Re-assembles the binding of `hostname` from the admitted `claims` and pushes a binding that
   * changed onto `delta.tls`; certificates go to the delta through {@link diffCertificates}. Without
   * claims, `shield` (the origin of the hostname's owner) binds it to {@link NO_CERTIFICATE}.
   * Returns the claim that won, if one did.
   */
  commitHost(
    hostname: string,
    claims: readonly SourcedTlsClaim[],
    delta: RouteTableDelta,
    shield?: RouteOrigin,
  ): SourcedTlsClaim | undefined {
    const assembled = assembleTlsBinding(hostname, claims);
    const { notes } = assembled;
    let binding = assembled.binding;
    if (binding === undefined && shield !== undefined)
      binding = { hostname, certificate: NO_CERTIFICATE, origin: shield };
    if (notes.length === 0) this.#notes.delete(hostname);
    else this.#notes.set(hostname, notes);
    const winner = claims.find((entry) => entry.claim.origin === binding?.origin);
    const old = this.#bindings.get(hostname);
    if (old !== undefined && binding !== undefined && isDeepEqual(old, binding)) return winner;
    if (old !== undefined) this.#releaseCertificate(old.certificate);
    if (binding === undefined) {
      if (old !== undefined) {
        this.#bindings.delete(hostname);
        delta.tls.remove.push(hostname);
      }
      return winner;
    }
    this.#bindings.set(hostname, binding);
    delta.tls.upsert.push(binding);
    if (winner === undefined) return winner;
    const certificate = winner.claim.certificate;
    const entry = this.#certificates.get(certificate.id);
    if (entry === undefined) this.#certificates.set(certificate.id, { certificate, bindings: 1 });
    else entry.bindings += 1;
    return winner;
  }

  /** Pushes onto `delta.certificates` the certificates bound since `before` and those no longer bound. */
  diffCertificates(before: ReadonlySet<string>, delta: RouteTableDelta): void {
    for (const [id, entry] of this.#certificates) {
      if (!before.has(id)) delta.certificates.upsert.push(entry.certificate);
    }
    for (const id of before) if (!this.#certificates.has(id)) delta.certificates.remove.push(id);
  }

  #releaseCertificate(id: string): void {
    const entry = this.#certificates.get(id);
    if (entry === undefined) return;
    entry.bindings -= 1;
    if (entry.bindings === 0) this.#certificates.delete(id);
  }
}
