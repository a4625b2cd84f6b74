/**
 * A deliberately thin OpenAPI v3: one PATCH operation per resource, tagged with its
 * group/version/kind and declaring the `fieldValidation` parameter. That is what kubectl's
 * query-parameter verifier looks for before it trusts the server to validate (without it,
 * kubectl insists on downloading a full schema). No component schemas are published, so kubectl
 * computes strategic merge patches from its compiled-in types and falls back to merge patches
 * for custom resources, as it does against a real server whose schema lacks patch metadata.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';

function groupVersionPath(definition: ResourceDefinition): string {
  return definition.group === ''
    ? `api/${definition.version}`
    : `apis/${definition.group}/${definition.version}`;
}

function groupByPath(resources: readonly ResourceDefinition[]): Map<string, ResourceDefinition[]> {
  const groups = new Map<string, ResourceDefinition[]>();
  for (const definition of resources) {
    const path = groupVersionPath(definition);
    groups.set(path, [...(groups.get(path) ?? []), definition]);
  }
  return groups;
}

function hashOf(definitions: readonly ResourceDefinition[]): string {
  const names = definitions.map(
    (definition) => `${definition.plural}:${definition.kind}:${definition.namespaced}`,
  );
  return createHash('sha256').update(names.join(',')).digest('hex').slice(0, 32).toUpperCase();
}

/** `/openapi/v3`: one entry per served group version, with a hash that changes when its resources do. */
export function buildOpenApiRoot(resources: readonly ResourceDefinition[]): JsonObject {
  const paths: JsonObject = {};
  for (const [path, definitions] of groupByPath(resources)) {
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hashOf(definitions)}` };
  }
  return { paths };
}

/** `/openapi/v3/{api/v1 | apis/G/V}`: the PATCH operations of that group version, or undefined. */
export function buildOpenApiDocument(
  resources: readonly ResourceDefinition[],
  path: string,
): JsonObject | undefined {
  const definitions = groupByPath(resources).get(path);
  if (!definitions) return undefined;
  const paths: JsonObject = {};
  for (const definition of definitions) {
    const base = `/${path}/${definition.namespaced ? 'namespaces/{namespace}/' : ''}${definition.plural}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${definition.kind}`,
        parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
          name,
          in: 'query',
          schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
        })),
        responses: { '200': { description: 'OK' } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': {
          group: definition.group,
          version: definition.version,
          kind: definition.kind,
        },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: {} },
  };
}
