/**
 * One HTTP dispatcher (connection pool) shared by list requests for as long as the TLS material and
 * proxy settings client-node builds it from stay the same, so list pages reuse their connection.
 */
import { createHash, type Hash } from 'node:crypto';
import type { KubeConfig, RequestContext } from '@kubernetes/client-node';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/** What client-node's `applyOptions` fills in and then builds a request's dispatcher from. */
interface AgentInputs {
  ca?: unknown;
  cert?: unknown;
  key?: unknown;
  pfx?: unknown;
  passphrase?: unknown;
  rejectUnauthorized?: unknown;
  servername?: unknown;
}

/** Authenticates list requests and hands them the shared dispatcher. */
export interface ListDispatcher {
  /**
   * Applies client-node's authentication to `context` (headers fresh on every call, so refreshed
   * tokens apply at once) and sets the shared dispatcher, replacing and closing it when its inputs
   * changed (a rotated certificate file, new exec-plugin client certificate, another cluster).
   */
  authenticate(context: RequestContext): Promise<void>;
  /** Closes the shared dispatcher once its requests are done; its idle connections end. */
  close(): Promise<void>;
}

/**
 * Creates the shared list dispatcher of `kubeConfig`. client-node 2.0.1's
 * `applySecurityAuthentication` builds a new undici Agent on every call (it offers no way to reuse
 * one), so without this each list page opens a new TCP (and TLS) connection and leaves the last
 * one idle.
 */
export function createListDispatcher(kubeConfig: KubeConfig): ListDispatcher {
  let current: { key: string; dispatcher: Dispatcher | undefined } | undefined;

  return {
    async authenticate(context) {
      // Key first, then authenticate: should the material rotate in between, the dispatcher kept is
      // newer than its key and the next call replaces it; the other order could keep a stale one.
      const key = await hashAgentInputs(kubeConfig);
      await kubeConfig.applySecurityAuthentication(context);
      const fresh = context.getDispatcher();
      if (key !== undefined && key === current?.key) {
        // Same inputs give the same kind of dispatcher: both set, or both none (the global one).
        if (current.dispatcher !== undefined) context.setDispatcher(current.dispatcher);
        closeQuietly(fresh);
        return;
      }
      const replaced = current?.dispatcher;
      current = key === undefined ? undefined : { key, dispatcher: fresh };
      closeQuietly(replaced);
    },

    async close() {
      const dispatcher = current?.dispatcher;
      current = undefined;
      await dispatcher?.close();
    },
  };
}

/**
 * Hashes the inputs of a request's dispatcher: the TLS options client-node's `applyOptions` yields
 * (certificate files are re-read and exec plugins asked on each call, both as for the request
 * itself) plus the cluster's server and proxy. Undefined when client-node no longer has
 * `applyOptions`: every request then keeps its own dispatcher, as client-node intends.
 */
async function hashAgentInputs(kubeConfig: KubeConfig): Promise<string | undefined> {
  // Declared private in 2.0.1's typings, but it is exactly what applySecurityAuthentication runs
  // first; its exec-plugin credentials are cached until they expire, so calling it twice is cheap.
  const internals = kubeConfig as unknown as { applyOptions?: (options: AgentInputs) => Promise<void> };
  if (typeof internals.applyOptions !== 'function') return undefined;
  const inputs: AgentInputs = {};
  await internals.applyOptions.call(kubeConfig, inputs);
  const cluster = kubeConfig.getCurrentCluster();
  const hash = createHash('sha256');
  for (const value of [
    cluster?.server,
    cluster?.proxyUrl,
    inputs.ca,
    inputs.cert,
    inputs.key,
    inputs.pfx,
    inputs.passphrase,
    inputs.rejectUnauthorized,
    inputs.servername,
  ]) {
    feed(hash, value);
  }
  return hash.digest('hex');
}

/** Adds `value` to `hash` with its length or type, so no two different inputs run together. */
function feed(hash: Hash, value: unknown): void {
  if (typeof value === 'string' || Buffer.isBuffer(value)) {
    const bytes = Buffer.from(value);
    hash.update(`${bytes.length}:`).update(bytes);
  } else if (Array.isArray(value)) {
    hash.update(`[${value.length}`);
    for (const item of value) feed(hash, item);
  } else {
    hash.update(`<${JSON.stringify(value) ?? 'undefined'}>`);
  }
}

/** Closes a dispatcher no one will send on again; undici lets its in-flight requests finish first. */
function closeQuietly(dispatcher: Dispatcher | undefined): void {
  // A close can only fail if the dispatcher was already destroyed, and then there is nothing left to free.
  dispatcher?.close().catch(() => {});
}
