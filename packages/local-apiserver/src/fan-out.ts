/**
 * Watch fan-out: delivering each committed event to every watcher whose filter it concerns, each
 * endpoint's line built and encoded once for all of them.
 */
import { makeEntry, serializeEntry, type ChangeType, type Entry } from './entries.js';
import { matchesFilter, type ObjectFilter } from './object-filter.js';
import type { KubeObject } from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';

/** One change in a resource's history; each endpoint's line is built once and shared by all watchers. */
export interface StoredEvent {
  readonly type: ChangeType;
  readonly rv: number;
  /** The new state; for DELETED the last state carrying the deletion's resourceVersion. */
  readonly entry: Entry;
  /** The state before the change (undefined for ADDED). */
  readonly previous: Entry | undefined;
  lines?: Map<string, Buffer>;
}

/** Where a watch delivers its lines; the HTTP layer implements it. */
export interface WatchSubscriber {
  readonly definition: ResourceDefinition;
  readonly filter: ObjectFilter;
  /** Writes one or more complete `\n`-terminated JSON lines. */
  write(chunk: Buffer | string): void;
  /** Ends the stream cleanly (fault injection, resource removed, server stop). */
  end(): void;
}

/**
 * The watch line `subscriber` gets for `event`, or undefined when the change is outside its
 * filter. A MODIFIED object that enters the selection is sent as ADDED; one that leaves it as
 * DELETED of its previous state at the new resourceVersion, as kube-apiserver's cacher does.
 */
export function lineFor(event: StoredEvent, subscriber: WatchSubscriber): Buffer | undefined {
  const filter = subscriber.filter;
  const isMatch = matchesFilter(event.entry, filter);
  let type: ChangeType;
  let fromPrevious = false;
  if (event.type === 'MODIFIED') {
    const wasMatch = event.previous !== undefined && matchesFilter(event.previous, filter);
    if (isMatch && wasMatch) type = 'MODIFIED';
    else if (isMatch) type = 'ADDED';
    else if (wasMatch) {
      type = 'DELETED';
      fromPrevious = true;
    } else return undefined;
  } else {
    if (!isMatch) return undefined;
    type = event.type;
  }
  const definition = subscriber.definition;
  const cacheKey = `${definition.group}/${definition.version}/${definition.plural}|${type}|${fromPrevious ? 'p' : ''}`;
  event.lines ??= new Map();
  let line = event.lines.get(cacheKey);
  if (line === undefined) {
    let json: string;
    if (fromPrevious) {
      const previous = event.previous!;
      const object: KubeObject = {
        ...previous.object,
        metadata: { ...previous.object.metadata, resourceVersion: String(event.rv) },
      };
      json = serializeEntry(makeEntry(previous.key, object, event.rv), definition);
    } else {
      json = serializeEntry(event.entry, definition);
    }
    // A Buffer, so the UTF-8 encoding is also done once for all watchers.
    line = Buffer.from(`{"type":"${type}","object":${json}}\n`);
    event.lines.set(cacheKey, line);
  }
  return line;
}

/** Writes `event` to every subscriber whose filter it concerns. */
export function publishEvent(subscribers: Iterable<WatchSubscriber>, event: StoredEvent): void {
  for (const subscriber of subscribers) {
    const chunk = lineFor(event, subscriber);
    if (chunk) subscriber.write(chunk);
  }
}
