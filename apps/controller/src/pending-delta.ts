/**
 * Route table changes nginx has not received yet, merged by key: a later change to a key replaces
 * an earlier one, so a push carries each key once however often it changed meanwhile.
 */
import { backendKey, certificateKey, hostKey, tlsKey } from '@ingresskit/nginx-template';
import type {
  Backend,
  Certificate,
  Listener,
  RouteTableDelta,
  TlsBinding,
  VirtualHost,
} from '@ingresskit/route-model';

/** Pending changes by key; null means "remove". */
export interface PendingDelta {
  virtualHosts: Map<string, VirtualHost | null>;
  tls: Map<string, TlsBinding | null>;
  certificates: Map<string, Certificate | null>;
  backends: Map<string, Backend | null>;
  listeners?: Listener[] | undefined;
}

/** Nothing pending. */
export function createPendingDelta(): PendingDelta {
  return { virtualHosts: new Map(), tls: new Map(), certificates: new Map(), backends: new Map() };
}

/** Records `delta` on top of what is pending. */
export function mergeIntoPending(pending: PendingDelta, delta: RouteTableDelta): void {
  for (const host of delta.virtualHosts.upsert) pending.virtualHosts.set(host.hostname, host);
  for (const hostname of delta.virtualHosts.remove) pending.virtualHosts.set(hostname, null);
  for (const binding of delta.tls.upsert) pending.tls.set(binding.hostname, binding);
  for (const hostname of delta.tls.remove) pending.tls.set(hostname, null);
  for (const certificate of delta.certificates.upsert) pending.certificates.set(certificate.id, certificate);
  for (const id of delta.certificates.remove) pending.certificates.set(id, null);
  for (const backend of delta.backends.upsert) pending.backends.set(backend.id, backend);
  for (const id of delta.backends.remove) pending.backends.set(id, null);
  if (delta.listeners !== undefined) pending.listeners = delta.listeners;
}

/** How many keys are pending. */
export function pendingSize(pending: PendingDelta): number {
  return (
    pending.virtualHosts.size +
    pending.tls.size +
    pending.certificates.size +
    pending.backends.size +
    (pending.listeners === undefined ? 0 : 1)
  );
}

function split<T>(entries: Map<string, T | null>): { upsert: T[]; remove: string[] } {
  const upsert: T[] = [];
  const remove: string[] = [];
  for (const [key, value] of entries) {
    if (value === null) remove.push(key);
    else upsert.push(value);
  }
  return { upsert, remove };
}

/** What is pending as a delta. */
export function pendingDelta(pending: PendingDelta): RouteTableDelta {
  const delta: RouteTableDelta = {
    virtualHosts: split(pending.virtualHosts),
    tls: split(pending.tls),
    certificates: split(pending.certificates),
    backends: split(pending.backends),
  };
  if (pending.listeners !== undefined) delta.listeners = pending.listeners;
  return delta;
}

/**
 * What cannot wait for room in nginx's memory: the backends' new endpoints (a victim's pods that
 * moved) and the virtual hosts removed (which make room). Small, and safe on their own: no entry
 * they leave behind names what they change.
 */
export function urgentDelta(pending: PendingDelta): RouteTableDelta {
  const upserted = [...pending.backends.values()].filter((backend) => backend !== null);
  const removed = [...pending.virtualHosts].filter(([, host]) => host === null).map(([hostname]) => hostname);
  return {
    virtualHosts: { upsert: [], remove: removed },
    tls: { upsert: [], remove: [] },
    certificates: { upsert: [], remove: [] },
    backends: { upsert: upserted, remove: [] },
  };
}

/** Forgets what urgentDelta took, once nginx has it. */
export function clearUrgent(pending: PendingDelta): void {
  for (const [id, backend] of [...pending.backends]) if (backend !== null) pending.backends.delete(id);
  for (const [hostname, host] of [...pending.virtualHosts])
    if (host === null) pending.virtualHosts.delete(hostname);
}

/** Forgets what was pushed: everything. */
export function clearPending(pending: PendingDelta): void {
  pending.virtualHosts.clear();
  pending.tls.clear();
  pending.certificates.clear();
  pending.backends.clear();
  pending.listeners = undefined;
}

/** The data keys a delta upserts or removes. */
export function changedKeysOf(delta: RouteTableDelta): string[] {
  return [
    ...delta.virtualHosts.upsert.map((host) => hostKey(host.hostname)),
    ...delta.virtualHosts.remove.map(hostKey),
    ...delta.tls.upsert.map((binding) => tlsKey(binding.hostname)),
    ...delta.tls.remove.map(tlsKey),
    ...delta.certificates.upsert.map((certificate) => certificateKey(certificate.id)),
    ...delta.certificates.remove.map(certificateKey),
    ...delta.backends.upsert.map((backend) => backendKey(backend.id)),
    ...delta.backends.remove.map(backendKey),
  ];
}
