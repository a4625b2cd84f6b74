/** What a request path names. */
export type Route =
  | { type: 'version' }
  | { type: 'health' }
  | { type: 'openapiV2' }
  | { type: 'openapiV3'; path: string }
  | { type: 'apiVersions' }
  | { type: 'apiGroupList' }
  | { type: 'apiGroup'; group: string }
  | { type: 'resourceList'; group: string; version: string }
  | ResourceRoute
  | { type: 'unknown' };

/** A path under a group version that names a resource, optionally one object and a subresource. */
export interface ResourceRoute {
  type: 'resource';
  group: string;
  version: string;
  plural: string;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  /** True for the deprecated `/watch/` path prefix. */
  isLegacyWatch: boolean;
}

const healthPaths = new Set(['/healthz', '/livez', '/readyz']);

/** Maps a URL path (no query) onto a route; the server decides later whether the resource exists. */
export function parseRoute(pathname: string): Route {
  if (pathname === '/version' || pathname === '/version/') return { type: 'version' };
  if (healthPaths.has(pathname) || /^\/(healthz|livez|readyz)\//.test(pathname)) return { type: 'health' };
  if (pathname === '/openapi/v2' || pathname === '/swagger.json') return { type: 'openapiV2' };
  if (pathname === '/openapi/v3' || pathname.startsWith('/openapi/v3/')) {
    return { type: 'openapiV3', path: pathname.slice('/openapi/v3'.length).replace(/^\/+/, '') };
  }
  const segments = pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeSegment);
  if (segments.some((segment) => segment === undefined)) return { type: 'unknown' };
  const parts = segments as string[];
  if (parts[0] === 'api') {
    if (parts.length === 1) return { type: 'apiVersions' };
    if (parts[1] !== 'v1') return { type: 'unknown' };
    if (parts.length === 2) return { type: 'resourceList', group: '', version: 'v1' };
    return parseResourcePath('', 'v1', parts.slice(2));
  }
  if (parts[0] === 'apis') {
    if (parts.length === 1) return { type: 'apiGroupList' };
    const group = parts[1]!;
    if (parts.length === 2) return { type: 'apiGroup', group };
    const version = parts[2]!;
    if (parts.length === 3) return { type: 'resourceList', group, version };
    return parseResourcePath(group, version, parts.slice(3));
  }
  return { type: 'unknown' };
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function parseResourcePath(group: string, version: string, input: string[]): Route {
  let rest = input;
  const isLegacyWatch = rest[0] === 'watch';
  if (isLegacyWatch) rest = rest.slice(1);
  const base = { type: 'resource' as const, group, version, isLegacyWatch };
  // `namespaces/{ns}/{plural}/…` is a namespaced resource unless the third segment is a
  // namespace subresource; `namespaces/{name}` alone is the Namespace object itself.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(group === '' && isNamespaceSubresource(rest))) {
    const [, namespace, plural, name, subresource, ...extra] = rest;
    if (extra.length > 0) return { type: 'unknown' };
    return { ...base, plural: plural!, namespace, name, subresource };
  }
  const [plural, name, subresource, ...extra] = rest;
  if (plural === undefined || extra.length > 0) return { type: 'unknown' };
  return { ...base, plural, namespace: undefined, name, subresource };
}

function isNamespaceSubresource(rest: readonly string[]): boolean {
  return rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
}
