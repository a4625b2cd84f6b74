/** Answers the HTTP requests of the API server: content negotiation, fault injection and routing to discovery, OpenAPI and resource endpoints. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  buildApiGroup,
  buildApiGroupList,
  buildApiResourceList,
  buildApiVersions,
  serverVersion,
} from './discovery.js';
import { ApiStatusError, buildFailureStatus, buildUnknownPathStatus } from './errors.js';
import type { RequestFaults } from './faults.js';
import { acceptsJson, drain } from './http-request.js';
import { sendJson, sendStatus } from './http-response.js';
import { buildOpenApiDocument, buildOpenApiRoot } from './openapi.js';
import { handleResource, type ResourceContext } from './resource-handler.js';
import { parseRoute } from './router.js';

/** What the request handler needs from the server around it. */
export interface HandlerContext extends ResourceContext {
  faults: RequestFaults;
  /** `host:port` for `/api`'s serverAddressByClientCIDRs. */
  serverAddress: () => string;
  /** Waits `ms` (cancelled when the server stops). */
  delay: (ms: number) => Promise<void>;
}

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
