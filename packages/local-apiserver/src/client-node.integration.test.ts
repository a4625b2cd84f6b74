import { readFile } from 'node:fs/promises';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApiServer, type LocalApiServer } from './server.js';
import { statusFromApiException } from './test-helpers.js';

const crdDir = new URL('../../../testdata/gateway-api-v1.6.1/', import.meta.url);

const ingressCheckSumCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'ingresschecksums.tengine.taobao.org' },
  spec: {
    group: 'tengine.taobao.org',
    scope: 'Namespaced',
    names: {
      plural: 'ingresschecksums',
      singular: 'ingresschecksum',
      kind: 'IngressCheckSum',
      listKind: 'IngressCheckSumList',
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['timestamp'],
                properties: {
                  checksum: { type: 'string' },
                  ids: { type: 'array', items: { type: 'string' } },
                  timestamp: { type: 'string', format: 'date-time' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return { code: (error as { code?: number }).code, status: statusFromApiException(error) };
  }
  throw new Error('expected the request to fail');
}

let server: LocalApiServer;
let kc: k8s.KubeConfig;

beforeAll(async () => {
  server = await startLocalApiServer();
  kc = server.kubeConfig();
});

afterAll(async () => {
  await server.stop();
});

describe('startLocalApiServer with the generated client-node APIs', () => {
  it('serves CoreV1Api CRUD with a global resourceVersion and real error shapes', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const namespaces = await core.listNamespace();
    expect(namespaces.items.map((namespace) => namespace.metadata?.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']),
    );
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'crud' }, data: { a: '1' } },
    });
    expect(Number(created.metadata?.resourceVersion)).toBeGreaterThan(
      Number(namespaces.metadata?.resourceVersion),
    );
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);

    const replaced = await core.replaceNamespacedConfigMap({
      name: 'crud',
      namespace: 'default',
      body: { ...created, data: { a: '2' } },
    });
    expect(replaced.data).toEqual({ a: '2' });
    const stale = await rejection(
      core.replaceNamespacedConfigMap({
        name: 'crud',
        namespace: 'default',
        body: { ...created, data: { a: '3' } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.status).toMatchObject({ reason: 'Conflict', details: { name: 'crud', kind: 'configmaps' } });

    const duplicate = await rejection(
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'crud' } } }),
    );
    expect(duplicate.status).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "crud" already exists',
    });

    const deleted = await core.deleteNamespacedConfigMap({ name: 'crud', namespace: 'default' });
    expect(deleted).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'crud', kind: 'configmaps', uid: created.metadata?.uid },
    });
    const missing = await rejection(core.readNamespacedConfigMap({ name: 'crud', namespace: 'default' }));
    expect(missing).toEqual({
      code: 404,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "crud" not found',
        reason: 'NotFound',
        details: { name: 'crud', kind: 'configmaps' },
        code: 404,
      },
    });
  });

  it('returns the deleted object for Pods and refuses writes into a missing namespace', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    });
    const deleted = await core.deleteNamespacedPod({ name: 'p', namespace: 'default' });
    expect(deleted.kind).toBe('Pod');
    const noNamespace = await rejection(
      core.createNamespacedConfigMap({ namespace: 'ghost', body: { metadata: { name: 'c' } } }),
    );
    expect(noNamespace.status).toMatchObject({ code: 404, message: 'namespaces "ghost" not found' });
  });

  it('applies the Ingress strategy: status cleared on create, generation on spec only, status subresource', async () => {
    const net = kc.makeApiClient(k8s.NetworkingV1Api);
    const created = await net.createNamespacedIngress({
      namespace: 'default',
      body: {
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: { rules: [{ host: 'web.example.com' }] },
        status: { loadBalancer: { ingress: [{ ip: '9.9.9.9' }] } },
      },
    });
    expect(created.metadata?.generation).toBe(1);
    expect(created.status).toBeUndefined();

    const withStatus = await net.replaceNamespacedIngressStatus({
      name: 'web',
      namespace: 'default',
      body: { ...created, spec: { rules: [] }, status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } },
    });
    expect(withStatus.status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.0.0.1');
    expect(withStatus.spec?.rules?.[0]?.host).toBe('web.example.com');
    expect(withStatus.metadata?.generation).toBe(1);

    const patched = await net.patchNamespacedIngressStatus(
      {
        name: 'web',
        namespace: 'default',
        body: { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(patched.status?.loadBalancer?.ingress).toEqual([{ hostname: 'lb.example.com' }]);

    const respecced = await net.patchNamespacedIngress({
      name: 'web',
      namespace: 'default',
      body: [{ op: 'replace', path: '/spec/rules/0/host', value: 'www.example.com' }],
    });
    expect(respecced.metadata?.generation).toBe(2);
    expect(respecced.status?.loadBalancer?.ingress).toEqual([{ hostname: 'lb.example.com' }]);

    const invalid = await rejection(
      net.createNamespacedIngress({
        namespace: 'default',
        body: { metadata: { name: 'bad' }, spec: { rules: [{ host: 'UPPER.example.com' }] } },
      }),
    );
    expect(invalid.status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      details: {
        name: 'bad',
        group: 'networking.k8s.io',
        kind: 'Ingress',
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.rules[0].host' }],
      },
    });
    expect(invalid.status.message).toMatch(
      /^Ingress\.networking\.k8s\.io "bad" is invalid: spec\.rules\[0\]\.host: Invalid value: "UPPER\.example\.com": /,
    );

    const deleted = await net.deleteNamespacedIngress({ name: 'web', namespace: 'default' });
    expect(deleted).toMatchObject({
      status: 'Success',
      details: { name: 'web', group: 'networking.k8s.io', kind: 'ingresses' },
    });
  });

  it('defaults the IngressClass of a new Ingress from the newest default class', async () => {
    const net = kc.makeApiClient(k8s.NetworkingV1Api);
    await net.createIngressClass({
      body: {
        metadata: {
          name: 'ingresskit',
          annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
        },
        spec: { controller: 'ingresskit.dev/controller' },
      },
    });
    const defaulted = await net.createNamespacedIngress({
      namespace: 'default',
      body: { metadata: { name: 'defaulted' }, spec: {} },
    });
    expect(defaulted.spec?.ingressClassName).toBe('ingresskit');
    const legacy = await net.createNamespacedIngress({
      namespace: 'default',
      body: {
        metadata: { name: 'legacy', annotations: { 'kubernetes.io/ingress.class': 'other' } },
        spec: {},
      },
    });
    expect(legacy.spec?.ingressClassName).toBeUndefined();
    await net.deleteIngressClass({ name: 'ingresskit' });
  });

  it('pages a list with limit and _continue', async () => {
    const discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
    for (let i = 0; i < 5; i++) {
      await discovery.createNamespacedEndpointSlice({
        namespace: 'default',
        body: {
          metadata: { name: `slice-${i}`, labels: { 'kubernetes.io/service-name': 'web' } },
          addressType: 'IPv4',
          endpoints: [{ addresses: [`10.0.0.${i}`] }],
        },
      });
    }
    const first = await discovery.listEndpointSliceForAllNamespaces({
      limit: 2,
      labelSelector: 'kubernetes.io/service-name=web',
    });
    expect(first.items.map((item) => item.metadata?.name)).toEqual(['slice-0', 'slice-1']);
    expect(first.metadata?._continue).toBeTruthy();
    const rest = await discovery.listNamespacedEndpointSlice({
      namespace: 'default',
      limit: 10,
      _continue: first.metadata?._continue,
    });
    expect(rest.items.map((item) => item.metadata?.name)).toEqual(['slice-2', 'slice-3', 'slice-4']);
    expect(rest.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    const byName = await discovery.listNamespacedEndpointSlice({
      namespace: 'default',
      fieldSelector: 'metadata.name=slice-3',
    });
    expect(byName.items).toHaveLength(1);
    const badField = await rejection(
      discovery.listNamespacedEndpointSlice({ namespace: 'default', fieldSelector: 'spec.x=1' }),
    );
    expect(badField.status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: spec.x',
    });
  });

  it('answers 400 for a Lease MicroTime sent as a Date (3 digits) and stores a 6-digit string', async () => {
    const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
    const refused = await rejection(
      coordination.createNamespacedLease({
        namespace: 'default',
        body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', renewTime: new Date() } },
      }),
    );
    expect(refused.code).toBe(400);
    expect(refused.status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: expect.stringMatching(
        /^Lease in version "v1" cannot be handled as a Lease: parsing time "\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z" as "2006-01-02T15:04:05\.000000Z07:00": cannot parse "\.\d{3}Z" as "\.000000"$/,
      ),
    });
    const renewTime = '2024-01-01T00:00:00.123456Z' as unknown as Date;
    const lease = await coordination.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: {
        metadata: { name: 'leader' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime },
      },
    });
    expect(lease.spec?.holderIdentity).toBe('a');
    const lost = await rejection(
      coordination.replaceNamespacedLease({
        name: 'leader',
        namespace: 'kube-node-lease',
        body: {
          ...lease,
          metadata: { ...lease.metadata, resourceVersion: '1' },
          spec: { ...lease.spec, holderIdentity: 'b', renewTime },
        },
      }),
    );
    expect(lost.code).toBe(409);
  });

  it('serves CRDs through CustomObjectsApi, with status, merge patch and 415 for strategic merge patch', async () => {
    const extensions = kc.makeApiClient(k8s.ApiextensionsV1Api);
    const crd = await extensions.createCustomResourceDefinition({ body: ingressCheckSumCrd });
    expect(crd.status?.conditions?.find((condition) => condition.type === 'Established')?.status).toBe(
      'True',
    );
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const target = {
      group: 'tengine.taobao.org',
      version: 'v1',
      namespace: 'default',
      plural: 'ingresschecksums',
    };
    const created = (await custom.createNamespacedCustomObject({
      ...target,
      body: {
        apiVersion: 'tengine.taobao.org/v1',
        kind: 'IngressCheckSum',
        metadata: { name: 'sum-1' },
        spec: { checksum: 'abc', ids: ['1-1'], timestamp: '2024-01-01T00:00:00Z' },
      },
    })) as k8s.KubernetesObject & { spec: Record<string, unknown> };
    expect(created.metadata?.generation).toBe(1);
    const patched = (await custom.patchNamespacedCustomObject(
      { ...target, name: 'sum-1', body: { spec: { checksum: 'def' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as typeof created;
    expect(patched.spec).toMatchObject({ checksum: 'def', ids: ['1-1'] });
    expect(patched.metadata?.generation).toBe(2);
    const smp = await rejection(
      custom.patchNamespacedCustomObject(
        { ...target, name: 'sum-1', body: { spec: { checksum: 'x' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(smp.status).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    const listed = (await custom.listClusterCustomObject({
      group: 'tengine.taobao.org',
      version: 'v1',
      plural: 'ingresschecksums',
    })) as { items: unknown[] };
    expect(listed.items).toHaveLength(1);
  });

  it('serves the Gateway API CRDs, including the GatewayClass status subresource and finalizers', async () => {
    const files = ['gatewayclasses.yaml', 'gateways.yaml', 'httproutes.yaml', 'referencegrants.yaml'];
    const texts = await Promise.all(files.map((file) => readFile(new URL(file, crdDir), 'utf8')));
    await server.apply(texts.join('\n---\n'));
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const gatewayClasses = { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'gatewayclasses' };
    const created = (await custom.createClusterCustomObject({
      ...gatewayClasses,
      body: {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'GatewayClass',
        metadata: { name: 'ingresskit' },
        spec: { controllerName: 'ingresskit.dev/gateway' },
      },
    })) as k8s.KubernetesObject & { status?: unknown };
    const accepted = (await custom.replaceClusterCustomObjectStatus({
      ...gatewayClasses,
      name: 'ingresskit',
      body: {
        ...created,
        metadata: { ...created.metadata, labels: { ignored: 'true' } },
        status: {
          conditions: [
            {
              type: 'Accepted',
              status: 'True',
              reason: 'Accepted',
              message: '',
              lastTransitionTime: '2024-01-01T00:00:00Z',
              observedGeneration: 1,
            },
          ],
        },
      },
    })) as typeof created;
    expect(accepted.status).toMatchObject({ conditions: [{ type: 'Accepted', status: 'True' }] });
    expect(accepted.metadata?.labels).toBeUndefined();
    expect(accepted.metadata?.generation).toBe(1);

    const withFinalizer = (await custom.patchClusterCustomObject(
      {
        ...gatewayClasses,
        name: 'ingresskit',
        body: { metadata: { finalizers: ['gateway-exists-finalizer.gateway.networking.k8s.io'] } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as typeof created;
    const deleting = (await custom.deleteClusterCustomObject({
      ...gatewayClasses,
      name: 'ingresskit',
    })) as typeof created;
    expect(deleting.metadata?.deletionTimestamp).toBeTruthy();
    expect(deleting.metadata?.generation).toBe((withFinalizer.metadata?.generation ?? 0) + 1);
    await custom.patchClusterCustomObject(
      { ...gatewayClasses, name: 'ingresskit', body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    const gone = await rejection(custom.getClusterCustomObject({ ...gatewayClasses, name: 'ingresskit' }));
    expect(gone.status).toMatchObject({
      code: 404,
      message: 'gatewayclasses.gateway.networking.k8s.io "ingresskit" not found',
    });

    const beta = await custom.listClusterCustomObject({
      group: 'gateway.networking.k8s.io',
      version: 'v1beta1',
      plural: 'gatewayclasses',
    });
    expect(beta).toMatchObject({ apiVersion: 'gateway.networking.k8s.io/v1beta1', kind: 'GatewayClassList' });
  });

  it('drives KubernetesObjectApi through discovery, including server-side apply', async () => {
    const objects = kc.makeApiClient(k8s.KubernetesObjectApi);
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'generic', namespace: 'default' },
      data: { a: '1' },
    };
    await objects.create(configMap);
    const read = await objects.read({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'generic', namespace: 'default' },
    });
    expect((read as { data?: unknown }).data).toEqual({ a: '1' });
    const merged = await objects.patch({ ...configMap, data: { b: '2' } });
    expect((merged as { data?: unknown }).data).toEqual({ a: '1', b: '2' });

    const intent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', namespace: 'default' },
      data: { owner: 'alice' },
    };
    const applied: k8s.KubernetesObject = await objects.patch(
      intent,
      undefined,
      undefined,
      'alice',
      undefined,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect(applied.metadata?.managedFields?.[0]).toMatchObject({
      manager: 'alice',
      operation: 'Apply',
      fieldsV1: { 'f:data': { 'f:owner': {} } },
    });
    const conflict = await rejection(
      objects.patch(
        { ...intent, data: { owner: 'bob' } },
        undefined,
        undefined,
        'bob',
        undefined,
        k8s.PatchStrategy.ServerSideApply,
      ),
    );
    expect(conflict.status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', field: '.data.owner' }] },
    });
    const forced = await objects.patch(
      { ...intent, data: { owner: 'bob' } },
      undefined,
      undefined,
      'bob',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect((forced as { data?: unknown }).data).toEqual({ owner: 'bob' });

    const events = kc.makeApiClient(k8s.EventsV1Api);
    await events.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'sync.1' },
        eventTime: '2024-01-01T00:00:00.000000Z' as unknown as Date,
        reason: 'Sync',
        note: 'configuration reloaded',
        action: 'Reload',
        type: 'Normal',
        reportingController: 'ingresskit.dev/controller',
        reportingInstance: 'pod-1',
        regarding: { kind: 'ConfigMap', name: 'generic', namespace: 'default' },
      },
    });
    const coreEvents = await kc
      .makeApiClient(k8s.CoreV1Api)
      .listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.name=generic' });
    expect(coreEvents.items.map((event) => event.message)).toEqual(['configuration reloaded']);
  });
});
