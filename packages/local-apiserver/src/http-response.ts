/** Writes HTTP answers: JSON bodies, Status objects, stored entries and lists serialized from their cached JSON. */
import type { ServerResponse } from 'node:http';
import { serializeEntry, type Entry } from './entries.js';
import type { KubeStatus } from './errors.js';
import { listMetadataOf, type ListResult } from './list-page.js';
import { formatApiVersion } from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';

const jsonHeaders = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' };

/** The JSON of a list page of `definition`'s endpoint; items are the entries' stored JSON, not re-serialized. */
export function serializeList(definition: ResourceDefinition, result: ListResult): string {
  const apiVersion = formatApiVersion(definition.group, definition.version);
  const metadata = listMetadataOf(result);
  const items = result.entries.map((entry) => serializeEntry(entry, definition)).join(',');
  return `{"kind":${JSON.stringify(definition.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[${items}]}`;
}

/** Answers with `entry` as `definition`'s endpoint serves it. */
export function sendEntry(
  response: ServerResponse,
  code: number,
  entry: Entry,
  definition: ResourceDefinition,
): void {
  sendRaw(response, code, serializeEntry(entry, definition));
}

/** Answers with `body` as JSON. */
export function sendJson(response: ServerResponse, code: number, body: unknown): void {
  sendRaw(response, code, JSON.stringify(body));
}

/** Answers with a `Status`, its code as the HTTP status. */
export function sendStatus(response: ServerResponse, status: KubeStatus): void {
  sendRaw(response, status.code ?? 500, JSON.stringify(status));
}

/** Answers with a JSON text already serialized. */
export function sendRaw(response: ServerResponse, code: number, body: string): void {
  response.writeHead(code, { ...jsonHeaders, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}
