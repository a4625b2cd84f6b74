/**
 * The event stream of one watch, as kube-apiserver streams it: expired versions, bookmarks,
 * timeouts, and slow watchers cut off.
 */
import type { ServerResponse } from 'node:http';
import { ApiStatusError } from './errors.js';
import { formatApiVersion } from './objects.js';
import type { WatchSubscriber } from './fan-out.js';
import type { ObjectFilter } from './object-filter.js';
import type { Registry } from './registry.js';
import type { ResourceDefinition } from './resource-definition.js';

/** What a watch request asked for. */
export interface WatchRequest {
  definition: ResourceDefinition;
  filter: ObjectFilter;
  resourceVersion: string | undefined;
  allowBookmarks: boolean;
  /** Seconds until the server ends the stream cleanly. */
  timeoutSeconds: number;
  bookmarkIntervalMs: number;
}

/**
 * A watcher whose socket has this much unsent data is too slow: its stream is ended cleanly and
 * the client resumes from its last resourceVersion (kube-apiserver drops slow watchers too).
 */
const maxBufferedBytes = 64 * 2 ** 20;

/** Headers of every watch response; they are flushed at once because client-node waits for them. */
const watchHeaders = {
  'Content-Type': 'application/json',
  'Cache-Control': 'no-cache, private',
  'Transfer-Encoding': 'chunked',
};

/**
 * Streams a watch over `response`: headers first, then one JSON event per line. A resourceVersion
 * older than the history gets HTTP 200 with one ERROR event (410 Expired) and the stream closes,
 * as kube-apiserver does. Bookmarks go out every `bookmarkIntervalMs` and just before the timeout
 * when the client allowed them. Every timer stops when the stream ends.
 */
export function streamWatch(registry: Registry, request: WatchRequest, response: ServerResponse): void {
  response.writeHead(200, watchHeaders);
  response.flushHeaders();
  const { definition } = request;
  let stopSubscription: (() => void) | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let finished = false;

  const cleanup = (): void => {
    if (finished) return;
    finished = true;
    stopSubscription?.();
    if (bookmarkTimer) clearInterval(bookmarkTimer);
    clearTimeout(timeoutTimer);
  };
  const end = (): void => {
    if (finished) return;
    cleanup();
    response.end();
  };
  const sendBookmark = (): void => {
    if (finished) return;
    const apiVersion = formatApiVersion(definition.group, definition.version);
    const rv = String(registry.currentResourceVersion());
    response.write(
      `{"type":"BOOKMARK","object":{"kind":${JSON.stringify(definition.kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${rv}"}}}\n`,
    );
  };

  const subscriber: WatchSubscriber = {
    definition,
    filter: request.filter,
    write: (chunk) => {
      if (finished) return;
      response.write(chunk);
      if (response.writableLength > maxBufferedBytes) end();
    },
    end,
  };
  const timeoutTimer = setTimeout(() => {
    if (request.allowBookmarks) sendBookmark();
    end();
  }, request.timeoutSeconds * 1000);
  response.on('close', cleanup);
  try {
    stopSubscription = registry.watch(definition, request.resourceVersion, subscriber);
  } catch (error) {
    if (error instanceof ApiStatusError) {
      // Errors after the watch is accepted travel as an ERROR event; the client waits for EOF.
      response.write(`{"type":"ERROR","object":${JSON.stringify(error.status)}}\n`);
      end();
      return;
    }
    end();
    throw error;
  }
  if (finished) {
    stopSubscription();
    return;
  }
  if (request.allowBookmarks && request.bookmarkIntervalMs > 0) {
    bookmarkTimer = setInterval(sendBookmark, request.bookmarkIntervalMs);
  }
}
