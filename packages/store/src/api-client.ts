/** Lists and watches for the reflectors, through client-node but with items kept as plain JSON. */
import {
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  type KubeConfig,
  RequestContext,
  Watch,
} from '@kubernetes/client-node';
import { ApiStatusError, StoreConfigError } from './errors.js';
import { createListDispatcher } from './list-dispatcher.js';

/** Query of a list request. */
export interface ListRequest {
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continueToken?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /**
   * Ask for the items' metadata only (a `meta.k8s.io/v1` PartialObjectMetadataList); a server that
   * cannot answer so sends whole objects.
   */
  readonly metadataOnly?: boolean;
  readonly signal?: AbortSignal;
}

/** One page of a list: raw items (plain JSON), the list's resourceVersion and the continue token. */
export interface ListPage {
  readonly items: unknown[];
  readonly resourceVersion: string;
  readonly continueToken: string | undefined;
}

/** Query of a watch request. */
export interface WatchRequest {
  readonly path: string;
  readonly resourceVersion: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly timeoutSeconds?: number;
}

/** A running watch; `abort()` ends it (its done callback then reports an AbortError, which callers ignore). */
export interface WatchHandle {
  abort(): void;
}

/** The two requests a reflector needs; the default goes through client-node, tests may fake it. */
export interface ResourceClient {
  /** Lists one page. Rejects with {@link ApiStatusError} on a non-200 answer. */
  list(request: ListRequest): Promise<ListPage>;
  /**
   * Starts a watch. `onEvent` gets each event's type and raw object; `onDone` is called once when
   * the stream ends, with an error (status, network, timeout) or null for a clean close. Resolves
   * once the response headers arrived or the request failed.
   */
  watch(
    request: WatchRequest,
    onEvent: (type: string, object: unknown) => void,
    onDone: (error: unknown) => void,
  ): Promise<WatchHandle>;
}

/** The default {@link ResourceClient}, which holds pooled connections until it is closed. */
export interface ApiClient extends ResourceClient {
  /** Closes the connections kept for lists (once their requests are done); watches end by their own abort. */
  close(): Promise<void>;
}

/** Timeouts of the default client. */
export interface ApiClientOptions {
  /** A watch with no bytes for this long is cut and resumed (client-node's inactivity timeout). */
  readonly watchInactivityTimeoutMs?: number;
  /** Abort a list page that takes longer than this. */
  readonly listTimeoutMs?: number;
}

/**
 * A {@link ResourceClient} over client-node: lists go through client-node's request context,
 * authentication and HTTP library but skip model deserialization, so items stay plain JSON (string
 * timestamps, unknown fields kept) and can be paginated; watches use client-node's `Watch`. List
 * pages share one connection pool (see {@link createListDispatcher}).
 */
export function createApiClient(kubeConfig: KubeConfig, options: ApiClientOptions = {}): ApiClient {
  const http = new IsomorphicFetchHttpLibrary();
  const listDispatcher = createListDispatcher(kubeConfig);
  const watcher = new Watch(kubeConfig);
  if (options.watchInactivityTimeoutMs !== undefined) {
    // Declared private in 2.0.1's typings but read on every watch; there is no other way to tune it.
    (watcher as unknown as { requestTimeoutMs: number }).requestTimeoutMs = options.watchInactivityTimeoutMs;
  }
  const listTimeoutMs = options.listTimeoutMs ?? 60_000;

  return {
    async list(request) {
      const cluster = kubeConfig.getCurrentCluster();
      if (!cluster) throw new StoreConfigError('the kube config has no current cluster');
      const url = new URL(cluster.server.replace(/\/+$/, '') + request.path);
      const query: Record<string, string | number | undefined> = {
        labelSelector: request.labelSelector,
        fieldSelector: request.fieldSelector,
        limit: request.limit,
        continue: request.continueToken,
        resourceVersion: request.resourceVersion,
        resourceVersionMatch: request.resourceVersionMatch,
      };
      for (const [name, value] of Object.entries(query)) {
        if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
      }
      const context = new RequestContext(url.toString(), HttpMethod.GET);
      context.setHeaderParam('Accept', request.metadataOnly === true ? METADATA_ONLY : 'application/json');
      await listDispatcher.authenticate(context);
      const timeout = AbortSignal.timeout(listTimeoutMs);
      context.setSignal(request.signal ? AbortSignal.any([request.signal, timeout]) : timeout);
      const response = await http.send(context).toPromise();
      const text = await response.body.text();
      // undici hands the connection back to its pool on a later tick; without this yield a caller
      // asking for the next page at once finds it busy and opens a second one.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (response.httpStatusCode !== 200) throw statusError(response.httpStatusCode, text);
      const body = JSON.parse(text) as {
        items?: unknown[];
        metadata?: { resourceVersion?: string; continue?: string };
      };
      return {
        items: Array.isArray(body.items) ? body.items : [],
        resourceVersion: body.metadata?.resourceVersion ?? '',
        continueToken: body.metadata?.continue || undefined,
      };
    },

    async watch(request, onEvent, onDone) {
      const query: Record<string, string | number | boolean> = {
        resourceVersion: request.resourceVersion,
        // Bookmarks keep the resourceVersion fresh on quiet resources, so a reconnect rarely needs a relist.
        allowWatchBookmarks: true,
      };
      if (request.labelSelector) query.labelSelector = request.labelSelector;
      if (request.fieldSelector) query.fieldSelector = request.fieldSelector;
      if (request.timeoutSeconds !== undefined) query.timeoutSeconds = request.timeoutSeconds;
      try {
        return await watcher.watch(
          request.path,
          query,
          (type: string, object: unknown) => onEvent(type, object),
          onDone,
        );
      } catch (error) {
        // Watch.watch throws only before any request was made (no current cluster).
        onDone(error);
        return { abort() {} };
      }
    },

    close: () => listDispatcher.close(),
  };
}

/** The Accept header of a metadata-only list, whole objects as the fallback (as client-go asks). */
const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

function statusError(statusCode: number, body: string): ApiStatusError {
  let reason: string | undefined;
  let message = `HTTP ${statusCode}`;
  try {
    const status = JSON.parse(body) as { reason?: unknown; message?: unknown };
    if (typeof status.reason === 'string') reason = status.reason;
    if (typeof status.message === 'string') message = status.message;
  } catch {
    // Not a Status object (a proxy's HTML page, say): the status code is all there is.
  }
  return new ApiStatusError(statusCode, reason, message);
}
