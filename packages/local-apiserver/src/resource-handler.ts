/** Serves one resource endpoint: get, list and watch, create, update, patch and delete, on an object or the collection. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  buildBadRequestStatus,
  buildDeleteSuccessStatus,
  buildMethodNotAllowedStatus,
  buildUnknownPathStatus,
  buildUnsupportedMediaTypeStatus,
  failWith,
} from './errors.js';
import { drain, parseBody, parseInteger, readBody, readObjectBody } from './http-request.js';
import { sendEntry, sendJson, sendRaw, sendStatus, serializeList } from './http-response.js';
import { parseObjectFilter } from './object-filter.js';
import { isPlainObject } from './objects.js';
import { parsePatchContentType, patchContentTypes } from './patch.js';
import type { Registry } from './registry.js';
import type { ResourceDefinition } from './resource-definition.js';
import type { ResourceRoute } from './router.js';
import { buildPartialMetadata, buildPartialMetadataList, wantsPartialMetadata } from './partial-metadata.js';
import { buildTable, wantsTable } from './table.js';
import { streamWatch } from './watch.js';

/** What the resource endpoints need from the server around them. */
export interface ResourceContext {
  registry: Registry;
  bookmarkIntervalMs: number;
  /** Seconds a watch without `timeoutSeconds` stays open. */
  pickWatchTimeoutSeconds: () => number;
  now: () => Date;
}

/** Answers a request on a resource URL (after routing); errors throw `ApiStatusError`. */
export async function handleResource(
  context: ResourceContext,
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
        if (wantsPartialMetadata(request.headers.accept)) {
          return sendJson(response, 200, buildPartialMetadata(entry));
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
      if (wantsPartialMetadata(request.headers.accept)) {
        return sendJson(response, 200, buildPartialMetadataList(result.entries, result));
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
  context: ResourceContext,
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
