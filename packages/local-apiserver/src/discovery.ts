/**
 * The discovery documents clients read before anything else: the server version, the API groups and
 * the resources each group version serves.
 */
import type { JsonObject } from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';

/** The Kubernetes version the server claims; kubectl 1.32 is within the supported skew. */
export const serverVersion = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z',
  goVersion: 'go1.23.3',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const statusVerbs = ['get', 'patch', 'update'];

/**
 * Orders Kubernetes versions the way discovery does: GA before beta before alpha, higher numbers
 * first, anything else last alphabetically. Returns a negative number when `a` comes first.
 */
export function compareKubeVersions(a: string, b: string): number {
  const rank = (version: string): [number, number, number] => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
    if (!match) return [3, 0, 0];
    const stability = match[2] === undefined ? 0 : match[2] === 'beta' ? 1 : 2;
    return [stability, -Number(match[1]), -Number(match[3] ?? 0)];
  };
  const [x, y] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `/api`: the core group's versions. */
export function buildApiVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupVersions(resources: readonly ResourceDefinition[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const definition of resources) {
    if (definition.group === '') continue;
    const versions = groups.get(definition.group) ?? [];
    if (!versions.includes(definition.version)) versions.push(definition.version);
    groups.set(definition.group, versions);
  }
  for (const versions of groups.values()) versions.sort(compareKubeVersions);
  return groups;
}

function describeGroup(name: string, versions: readonly string[]): JsonObject {
  const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

/** `/apis`: every named group with its versions, preferred version first. */
export function buildApiGroupList(resources: readonly ResourceDefinition[]): JsonObject {
  const groups = [...groupVersions(resources)].map(([name, versions]) => describeGroup(name, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** `/apis/{group}`: one group, or undefined when nothing serves it. */
export function buildApiGroup(
  resources: readonly ResourceDefinition[],
  group: string,
): JsonObject | undefined {
  const versions = groupVersions(resources).get(group);
  if (!versions) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...describeGroup(group, versions) };
}

/** `/api/v1` or `/apis/{group}/{version}`: the resources of one group version, or undefined when none. */
export function buildApiResourceList(
  resources: readonly ResourceDefinition[],
  group: string,
  version: string,
): JsonObject | undefined {
  const served = resources.filter(
    (definition) => definition.group === group && definition.version === version,
  );
  if (served.length === 0) return undefined;
  const list: JsonObject[] = [];
  for (const definition of served) {
    const entry: JsonObject = {
      name: definition.plural,
      singularName: definition.singular,
      namespaced: definition.namespaced,
      kind: definition.kind,
      verbs: allVerbs,
    };
    if (definition.shortNames.length > 0) entry.shortNames = definition.shortNames;
    if (definition.categories.length > 0) entry.categories = definition.categories;
    list.push(entry);
    if (definition.hasStatus) {
      list.push({
        name: `${definition.plural}/status`,
        singularName: '',
        namespaced: definition.namespaced,
        kind: definition.kind,
        verbs: statusVerbs,
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: list,
  };
}
