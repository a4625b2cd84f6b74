import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import {
  buildApiGroup,
  buildApiGroupList,
  buildApiResourceList,
  buildApiVersions,
  serverVersion,
} from './discovery.js';
import {
  ApiStatusError,
  buildBadRequestStatus,
  buildDeleteSuccessStatus,
  buildFailureStatus,
  buildMethodNotAllowedStatus,
  buildUnknownPathStatus,
  buildUnsupportedMediaTypeStatus,
  failWith,
  type KubeStatus,
} from './errors.js';
import type { RequestFaults } from './faults.js';
import { formatApiVersion, isPlainObject } from './objects.js';
import { parseObjectFilter } from './object-filter.js';
import { buildOpenApiDocument, buildOpenApiRoot } from './openapi.js';
import { parsePatchContentType, patchContentTypes } from './patch.js';
import { decodeProtobufObject, protobufContentType } from './protobuf.js';
import { serializeEntry, type Entry } from './entries.js';
import type { ListResult } from './list-page.js';
import type { Registry } from './registry.js';
import type { ResourceDefinition } from './resources.js';
import { parseRoute, type ResourceRoute } from './router.js';
import { buildTable, wantsTable } from './table.js';
import { streamWatch } from './watch.js';

/** What the request handler needs from the server around it. */
export interface HandlerContext {
  registry: Registry;
  faults: RequestFaults;
  bookmarkIntervalMs: number;
  /** Seconds a watch without `timeoutSeconds` stays open. */
  pickWatchTimeoutSeconds: () => number;
  /** `host:port` for `/api`'s serverAddressByClientCIDRs. */
  serverAddress: () => string;
  /** Waits `ms` (cancelled when the server stops). */
  delay: (ms: number) => Promise<void>;
  now: () => Date;
}

const jsonHeaders = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' };

/** Answers one HTTP request; never rejects (errors become `Status` responses). */
export async function handleRequest(
  context: HandlerContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  try {
    await dispatch(context, request, response);
  } catch (error) {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    if (error instanceof ApiStatusError) sendStatus(response, error.status);
    else {
      const message = error instanceof Error ? error.message : String(error);
      sendStatus(response, buildFailureStatus(500, `internal error: ${message}`, 'InternalError'));
    }
  }
}

async function dispatch(
  context: HandlerContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://local-apiserver');
  const method = (request.method ?? 'GET').toUpperCase();
  const route = parseRoute(url.pathname);
  const query = url.searchParams;
  const isWatch =
    (route.type === 'resource' && route.isLegacyWatch) ||
    query.get('watch') === 'true' ||
    query.get('watch') === '1';

  if (context.faults.latencyMs > 0) await context.delay(context.faults.latencyMs);
  if (!acceptsJson(request.headers.accept)) {
    await drain(request);
    sendStatus(
      response,
      buildFailureStatus(
        406,
        'only the following media types are accepted: application/json',
        'NotAcceptable',
      ),
    );
    return;
  }
  const injected = context.faults.takeFailure({ method, path: `${url.pathname}${url.search}`, isWatch });
  if (injected) {
    await drain(request);
    sendStatus(response, injected);
    return;
  }

  switch (route.type) {
    case 'version':
      return sendJson(response, 200, serverVersion);
    case 'health':
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('ok');
      return;
    case 'openapiV2':
      // Only the v3 documents exist; clients that ask for v2 (kubectl, as a fallback) accept a 404.
      return sendStatus(response, buildUnknownPathStatus());
    case 'openapiV3': {
      const resources = context.registry.listResources();
      const document =
        route.path === '' ? buildOpenApiRoot(resources) : buildOpenApiDocument(resources, route.path);
      return document ? sendJson(response, 200, document) : sendStatus(response, buildUnknownPathStatus());
    }
    case 'apiVersions':
      return sendJson(response, 200, buildApiVersions(context.serverAddress()));
    case 'apiGroupList':
      return sendJson(response, 200, buildApiGroupList(context.registry.listResources()));
    case 'apiGroup': {
      const group = buildApiGroup(context.registry.listResources(), route.group);
      return group ? sendJson(response, 200, group) : sendStatus(response, buildUnknownPathStatus());
    }
    case 'resourceList': {
      const list = buildApiResourceList(context.registry.listResources(), route.group, route.version);
      return list ? sendJson(response, 200, list) : sendStatus(response, buildUnknownPathStatus());
    }
    case 'resource':
      return handleResource(context, route, method, query, isWatch, request, response);
    case 'unknown':
      return sendStatus(response, buildUnknownPathStatus());
  }
}

async function handleResource(
  context: HandlerContext,
  route: ResourceRoute,
  method: string,
  query: URLSearchParams,
  isWatch: boolean,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { registry } = context;
  const definition = registry.findResource(route.group, route.version, route.plural);
  if (!definition || (route.namespace !== undefined && !definition.namespaced)) {
    return sendStatus(response, buildUnknownPathStatus());
  }
  if (route.subresource !== undefined && (route.subresource !== 'status' || !definition.hasStatus)) {
    return sendStatus(response, buildUnknownPathStatus());
  }
  const { namespace, name } = route;
  const subresource = route.subresource === 'status' ? 'status' : undefined;
  const dryRun = query.getAll('dryRun').includes('All');
  const fieldManager = query.get('fieldManager') ?? undefined;

  switch (method) {
    case 'GET':
    case 'HEAD': {
      if (name !== undefined) {
        const entry = registry.get(definition, namespace, name);
        if (wantsTable(request.headers.accept)) {
          return sendJson(response, 200, buildTable(definition, [entry], undefined, context.now(), query));
        }
        return sendEntry(response, 200, entry, definition);
      }
      if (isWatch) return startWatch(context, definition, namespace, query, response);
      const result = registry.list(definition, namespace, {
        labelSelector: query.get('labelSelector') ?? undefined,
        fieldSelector: query.get('fieldSelector') ?? undefined,
        limit: parseInteger(query.get('limit'), 'limit'),
        continue: query.get('continue') ?? undefined,
        resourceVersion: query.get('resourceVersion') ?? undefined,
        resourceVersionMatch: query.get('resourceVersionMatch') ?? undefined,
      });
      if (wantsTable(request.headers.accept)) {
        return sendJson(response, 200, buildTable(definition, result.entries, result, context.now(), query));
      }
      return sendRaw(response, 200, serializeList(definition, result));
    }
    case 'POST': {
      if (name !== undefined || (definition.namespaced && namespace === undefined)) {
        await drain(request);
        return sendStatus(response, buildMethodNotAllowedStatus());
      }
      const body = await readObjectBody(request);
      const entry = registry.create(definition, namespace, body, { dryRun, fieldManager });
      return sendEntry(response, 201, entry, definition);
    }
    case 'PUT': {
      if (name === undefined) {
        await drain(request);
        return sendStatus(response, buildMethodNotAllowedStatus());
      }
      const body = await readObjectBody(request);
      const entry = registry.update(definition, namespace, name, body, { subresource, dryRun, fieldManager });
      return sendEntry(response, 200, entry, definition);
    }
    case 'PATCH': {
      if (name === undefined) {
        await drain(request);
        return sendStatus(response, buildMethodNotAllowedStatus());
      }
      const kind = parsePatchContentType(request.headers['content-type']);
      if (kind === undefined) {
        await drain(request);
        return sendStatus(
          response,
          buildUnsupportedMediaTypeStatus(
            definition.isCustom
              ? [patchContentTypes.json, patchContentTypes.merge, patchContentTypes.apply]
              : Object.values(patchContentTypes),
          ),
        );
      }
      const raw = await readBody(request);
      const patch = parseBody(raw, kind === 'apply' ? 'yaml' : 'json');
      const { entry, created } = registry.patch(definition, namespace, name, kind, patch, {
        subresource,
        dryRun,
        fieldManager,
        force: query.get('force') === 'true',
      });
      return sendEntry(response, created ? 201 : 200, entry, definition);
    }
    case 'DELETE': {
      const raw = await readBody(request);
      const options = raw.length > 0 ? parseBody(raw, 'json') : {};
      const deleteOptions = isPlainObject(options) ? options : {};
      const isDryRun =
        dryRun || (Array.isArray(deleteOptions.dryRun) && deleteOptions.dryRun.includes('All'));
      if (name === undefined) {
        const entries = registry.deleteCollection(
          definition,
          namespace,
          {
            labelSelector: query.get('labelSelector') ?? undefined,
            fieldSelector: query.get('fieldSelector') ?? undefined,
          },
          { dryRun: isDryRun },
        );
        return sendRaw(
          response,
          200,
          serializeList(definition, { entries, resourceVersion: registry.currentResourceVersion() }),
        );
      }
      const preconditions = isPlainObject(deleteOptions.preconditions)
        ? deleteOptions.preconditions
        : undefined;
      const { entry, removed } = registry.delete(definition, namespace, name, {
        dryRun: isDryRun,
        preconditions: preconditions && {
          uid: typeof preconditions.uid === 'string' ? preconditions.uid : undefined,
          resourceVersion:
            typeof preconditions.resourceVersion === 'string' ? preconditions.resourceVersion : undefined,
        },
      });
      if (removed && !definition.returnsDeletedObject) {
        return sendJson(
          response,
          200,
          buildDeleteSuccessStatus(definition, name, entry.object.metadata.uid ?? ''),
        );
      }
      return sendEntry(response, 200, entry, definition);
    }
    default:
      await drain(request);
      return sendStatus(response, buildMethodNotAllowedStatus());
  }
}

function startWatch(
  context: HandlerContext,
  definition: ResourceDefinition,
  namespace: string | undefined,
  query: URLSearchParams,
  response: ServerResponse,
): void {
  if (query.get('sendInitialEvents') === 'true') {
    // Not implemented: a clear 400 makes client-go and kubectl fall back to LIST then WATCH.
    failWith(
      buildBadRequestStatus(
        'sendInitialEvents is not supported by this server; list, then watch from the list resourceVersion',
      ),
    );
  }
  const resourceVersion = query.get('resourceVersion') ?? undefined;
  if (resourceVersion !== undefined && resourceVersion !== '' && !/^\d+$/.test(resourceVersion)) {
    failWith(buildBadRequestStatus(`invalid resource version: ${JSON.stringify(resourceVersion)}`));
  }
  const filter = parseObjectFilter(
    definition,
    namespace,
    query.get('labelSelector') ?? undefined,
    query.get('fieldSelector') ?? undefined,
  );
  const timeout = parseInteger(query.get('timeoutSeconds'), 'timeoutSeconds');
  streamWatch(
    context.registry,
    {
      definition,
      filter,
      resourceVersion,
      allowBookmarks: query.get('allowWatchBookmarks') === 'true',
      timeoutSeconds: timeout !== undefined && timeout > 0 ? timeout : context.pickWatchTimeoutSeconds(),
      bookmarkIntervalMs: context.bookmarkIntervalMs,
    },
    response,
  );
}

function serializeList(definition: ResourceDefinition, result: ListResult): string {
  const apiVersion = formatApiVersion(definition.group, definition.version);
  const metadata: Record<string, string | number> = { resourceVersion: String(result.resourceVersion) };
  if (result.continueToken !== undefined) metadata.continue = result.continueToken;
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
  const items = result.entries.map((entry) => serializeEntry(entry, definition)).join(',');
  return `{"kind":${JSON.stringify(definition.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[${items}]}`;
}

// Protobuf-only clients get 406 and retry with JSON; everything else is answered with JSON.
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0]!.trim().toLowerCase();
    return (
      type === 'application/json' || type === '*/*' || type === 'application/*' || type.endsWith('+json')
    );
  });
}

function parseInteger(value: string | null, name: string): number | undefined {
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value))
    failWith(buildBadRequestStatus(`invalid value for ${name}: ${JSON.stringify(value)}`));
  return Number(value);
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

async function drain(request: IncomingMessage): Promise<void> {
  if (request.readableEnded) return;
  await readBody(request);
}

async function readObjectBody(request: IncomingMessage): Promise<unknown> {
  const type = (request.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  const raw = await readBody(request);
  if (type === 'application/json' || type === '' || type === '*/*') return parseBody(raw, 'json');
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml')
    return parseBody(raw, 'yaml');
  if (type === protobufContentType) {
    const result = decodeProtobufObject(raw);
    if (result.decoded) return result.object;
    failWith(
      result.reason === 'malformed'
        ? buildBadRequestStatus(result.message)
        : buildFailureStatus(415, result.message, 'UnsupportedMediaType'),
    );
  }
  failWith(
    buildFailureStatus(
      415,
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
      'UnsupportedMediaType',
    ),
  );
}

function parseBody(raw: Buffer, format: 'json' | 'yaml'): unknown {
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (format === 'json') {
      throw new ApiStatusError(
        buildBadRequestStatus(
          `the body of the request could not be decoded as JSON: ${(error as Error).message}`,
        ),
        {
          cause: error,
        },
      );
    }
  }
  try {
    return parseYaml(text) as unknown;
  } catch (error) {
    throw new ApiStatusError(buildBadRequestStatus(`error decoding YAML: ${(error as Error).message}`), {
      cause: error,
    });
  }
}

function sendEntry(
  response: ServerResponse,
  code: number,
  entry: Entry,
  definition: ResourceDefinition,
): void {
  sendRaw(response, code, serializeEntry(entry, definition));
}

function sendJson(response: ServerResponse, code: number, body: unknown): void {
  sendRaw(response, code, JSON.stringify(body));
}

function sendStatus(response: ServerResponse, status: KubeStatus): void {
  sendRaw(response, status.code ?? 500, JSON.stringify(status));
}

function sendRaw(response: ServerResponse, code: number, body: string): void {
  response.writeHead(code, { ...jsonHeaders, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}
