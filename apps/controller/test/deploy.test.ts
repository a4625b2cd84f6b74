/**
 * deploy/: every manifest parses, the CRDs equal the checksum package's, and the RBAC grants the
 * verbs the code uses: list/watch for every kind the store may mirror, and each Kubernetes API
 * call found in the sources of the controller and the L1 packages it runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingressCheckSumCrd, secretCheckSumCrd } from '@ingresskit/checksum';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const deployDir = join(repo, 'deploy');

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
  spec?: Record<string, unknown>;
}

interface Container {
  ports: { name: string; containerPort: number }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  resources: { requests: Record<string, string> };
}
interface DeploymentSpec {
  replicas: number;
  template: { spec: { serviceAccountName: string; containers: Container[] } };
}

function readYamlFiles(dir: string): { file: string; documents: Manifest[] }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.ya?ml$/.test(file))
    .sort()
    .map((file) => {
      const documents = parseAllDocuments(readFileSync(join(dir, file), 'utf8'));
      for (const document of documents) expect(document.errors, file).toEqual([]);
      return {
        file,
        documents: documents.map((document) => document.toJS() as Manifest).filter((value) => value !== null),
      };
    });
}

const manifests = readYamlFiles(deployDir).flatMap(({ documents }) => documents);

/** What a ServiceAccount may do: the rules of every Role/ClusterRole bound to it. */
function grantsOf(serviceAccount: string): Rule[] {
  const bindings = manifests.filter(
    (manifest) =>
      (manifest.kind === 'RoleBinding' || manifest.kind === 'ClusterRoleBinding') &&
      manifest.subjects?.some(
        (subject) => subject.kind === 'ServiceAccount' && subject.name === serviceAccount,
      ),
  );
  return bindings.flatMap((binding) => {
    const role = manifests.find(
      (manifest) =>
        manifest.kind === binding.roleRef?.kind && manifest.metadata.name === binding.roleRef?.name,
    );
    expect(
      role,
      `${binding.kind} ${binding.metadata.name} refers to a missing ${binding.roleRef?.kind}`,
    ).toBeDefined();
    return role?.rules ?? [];
  });
}

function isAllowed(rules: Rule[], group: string, resource: string, verb: string): boolean {
  return rules.some(
    (rule) =>
      rule.apiGroups.includes(group) && rule.resources.includes(resource) && rule.verbs.includes(verb),
  );
}

// Every client-node call the code makes, with the permission it needs. A call missing here fails
// the scan below, so a new API call cannot land without a decision about its RBAC.
type Permission = [group: string, resource: string, verb: string];
// A call made for several resources (the custom-objects API) lists each permission.
const apiCalls: Record<string, Permission | Permission[]> = {
  readNamespacedIngress: ['networking.k8s.io', 'ingresses', 'get'],
  replaceNamespacedIngressStatus: ['networking.k8s.io', 'ingresses/status', 'update'],
  listIngressClass: ['networking.k8s.io', 'ingressclasses', 'list'],
  listIngressForAllNamespaces: ['networking.k8s.io', 'ingresses', 'list'],
  listNamespacedIngress: ['networking.k8s.io', 'ingresses', 'list'],
  readNamespacedLease: ['coordination.k8s.io', 'leases', 'get'],
  createNamespacedLease: ['coordination.k8s.io', 'leases', 'create'],
  replaceNamespacedLease: ['coordination.k8s.io', 'leases', 'update'],
  readNamespacedPod: ['', 'pods', 'get'],
  listNamespacedPod: ['', 'pods', 'list'],
  readNamespacedService: ['', 'services', 'get'],
  readNode: ['', 'nodes', 'get'],
  createNamespacedEvent: ['events.k8s.io', 'events', 'create'],
  patchNamespacedEvent: ['events.k8s.io', 'events', 'patch'],
  getClusterCustomObject: ['gateway.networking.k8s.io', 'gatewayclasses', 'get'],
  replaceClusterCustomObject: ['gateway.networking.k8s.io', 'gatewayclasses', 'update'],
  replaceClusterCustomObjectStatus: ['gateway.networking.k8s.io', 'gatewayclasses/status', 'update'],
  listNamespacedCustomObject: ['tengine.taobao.org', 'ingresschecksums', 'list'],
  createNamespacedCustomObject: ['tengine.taobao.org', 'ingresschecksums', 'create'],
  deleteNamespacedCustomObject: ['tengine.taobao.org', 'ingresschecksums', 'delete'],
  getNamespacedCustomObject: [
    ['gateway.networking.k8s.io', 'gateways', 'get'],
    ['gateway.networking.k8s.io', 'httproutes', 'get'],
  ],
  replaceNamespacedCustomObjectStatus: [
    ['gateway.networking.k8s.io', 'gateways/status', 'update'],
    ['gateway.networking.k8s.io', 'httproutes/status', 'update'],
  ],
};
const apiCallPattern =
  /\.((?:read|list|create|replace|patch|delete|get)(?:Namespaced|Cluster|Node\b|IngressClass\b|IngressForAllNamespaces\b|CustomResourceDefinition\b)\w*)\(/g;

// The kinds the store may mirror (all options on): list and watch each.
const watched: [group: string, resource: string][] = [
  ['networking.k8s.io', 'ingresses'],
  ['networking.k8s.io', 'ingressclasses'],
  ['', 'services'],
  ['discovery.k8s.io', 'endpointslices'],
  ['', 'secrets'],
  ['', 'configmaps'],
  ['tengine.taobao.org', 'ingresschecksums'],
  ['gateway.networking.k8s.io', 'gatewayclasses'],
  ['gateway.networking.k8s.io', 'gateways'],
  ['gateway.networking.k8s.io', 'httproutes'],
  ['gateway.networking.k8s.io', 'referencegrants'],
  ['', 'namespaces'],
  ['apiextensions.k8s.io', 'customresourcedefinitions'],
];

function scanSources(dirs: string[]): Map<string, string[]> {
  const calls = new Map<string, string[]>();
  for (const dir of dirs) {
    for (const file of readdirSync(join(repo, dir), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file.includes('testing')) continue;
      const text = readFileSync(join(repo, dir, file), 'utf8');
      for (const match of text.matchAll(apiCallPattern)) {
        const list = calls.get(match[1]!) ?? [];
        list.push(join(dir, file));
        calls.set(match[1]!, list);
      }
    }
  }
  return calls;
}

describe('deploy manifests', () => {
  it('parse, and every object has an apiVersion, a kind and a name', () => {
    expect(manifests.length).toBeGreaterThan(10);
    for (const manifest of manifests) {
      expect(manifest.apiVersion).toBeTruthy();
      expect(manifest.kind).toBeTruthy();
      expect(manifest.metadata?.name).toBeTruthy();
    }
  });

  it('ship the checksum CRDs exactly as the checksum package defines them', () => {
    const crds = manifests.filter((manifest) => manifest.kind === 'CustomResourceDefinition');
    expect(crds).toEqual(expect.arrayContaining([ingressCheckSumCrd, secretCheckSumCrd]));
  });

  it('run two replicas with probes on the healthz port and resource requests', () => {
    const spec = manifests.find((manifest) => manifest.kind === 'Deployment')!
      .spec as unknown as DeploymentSpec;
    expect(spec.replicas).toBe(2);
    const container = spec.template.spec.containers[0]!;
    expect(container.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'healthz' });
    expect(container.livenessProbe.httpGet.port).toBe('healthz');
    expect(container.ports.find((port) => port.name === 'healthz')?.containerPort).toBe(10254);
    expect(container.resources.requests).toMatchObject({
      cpu: expect.any(String),
      memory: expect.any(String),
    });
    expect(spec.template.spec.serviceAccountName).toBe('ingresskit');
    const ingressClass = manifests.find((manifest) => manifest.kind === 'IngressClass')!;
    expect(ingressClass.spec?.controller).toBe('ingresskit.dev/ingress-controller');
  });

  it('grant the controller list and watch on every kind the store mirrors', () => {
    const rules = grantsOf('ingresskit');
    for (const [group, resource] of watched) {
      for (const verb of ['list', 'watch'])
        expect(isAllowed(rules, group, resource, verb), `${verb} ${group}/${resource}`).toBe(true);
    }
  });

  it('grant each API call in the code to the identity that makes it, and nothing unused', () => {
    const calls = scanSources([
      'apps/controller/src',
      'packages/store/src',
      'packages/status-sync/src',
      'packages/gateway-class/src',
    ]);
    expect(calls.size).toBeGreaterThan(10);
    const controllerRules = grantsOf('ingresskit');
    const publisherRules = grantsOf('ingresskit-checksum-publisher');
    const needed = { controller: new Set<string>(), publisher: new Set<string>() };
    for (const [method, files] of calls) {
      const permission = apiCalls[method];
      expect(
        permission,
        `${method} (called in ${files.join(', ')}) needs an entry in apiCalls`,
      ).toBeDefined();
      const byPublisher = files.every((file) => file.endsWith('commands/checksum.ts'));
      const rules = byPublisher ? publisherRules : controllerRules;
      const permissions = (Array.isArray(permission![0]) ? permission : [permission]) as Permission[];
      for (const [group, resource, verb] of permissions) {
        expect(isAllowed(rules, group, resource, verb), `${method}: ${verb} ${group}/${resource}`).toBe(true);
        needed[byPublisher ? 'publisher' : 'controller'].add(`${group}/${resource}/${verb}`);
      }
    }
    for (const [group, resource] of watched)
      for (const verb of ['list', 'watch']) needed.controller.add(`${group}/${resource}/${verb}`);
    for (const [who, rules] of [
      ['controller', controllerRules],
      ['publisher', publisherRules],
    ] as const) {
      for (const rule of rules) {
        for (const group of rule.apiGroups) {
          for (const resource of rule.resources) {
            for (const verb of rule.verbs)
              expect(
                needed[who].has(`${group}/${resource}/${verb}`),
                `${who} is granted ${verb} ${group}/${resource} but never uses it`,
              ).toBe(true);
          }
        }
      }
    }
  });
});
