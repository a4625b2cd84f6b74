import { readFileSync } from 'node:fs';
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { createStore, type Store } from '@ingresskit/store';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createParametersInformer, type ParametersInformer } from '../test/parameters-informer.js';
import { createStoreSource } from '../test/store-source.js';
import { GatewayClassController } from './controller.js';
import { GATEWAY_EXISTS_FINALIZER } from './finalizer.js';
import { ingressKitParametersCrd } from './parameters-crd.js';
import type { Condition, GatewayClass } from './types.js';
import { BUNDLE_VERSION_ANNOTATION } from './versions.js';

const controllerName = 'ingresskit.dev/gateway-controller';
const gatewayApi = { group: 'gateway.networking.k8s.io', version: 'v1' } as const;
const classes = { ...gatewayApi, plural: 'gatewayclasses' } as const;
const gateways = { ...gatewayApi, plural: 'gateways' } as const;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const waitOptions = { timeout: 15_000, interval: 50 };

function readCrd(file: string): string {
  return readFileSync(new URL(`../../../testdata/gateway-api-v1.6.1/${file}`, import.meta.url), 'utf8');
}

let server: Awaited<ReturnType<typeof startLocalApiServer>>;
let kubeConfig: KubeConfig;
let custom: CustomObjectsApi;
let core: CoreV1Api;
let store: Store;
let parameters: ParametersInformer;
let controller: GatewayClassController;
const errors: unknown[] = [];

beforeAll(async () => {
  server = await startLocalApiServer({ port: 0 });
  await server.apply(readCrd('gatewayclasses.yaml'));
  await server.apply(readCrd('gateways.yaml'));
  await server.apply([ingressKitParametersCrd]);
  await server.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'infra' } }]);
  kubeConfig = server.kubeConfig();
  custom = kubeConfig.makeApiClient(CustomObjectsApi);
  core = kubeConfig.makeApiClient(CoreV1Api);
  store = createStore(kubeConfig, {
    kinds: ['GatewayClass', 'Gateway', 'ConfigMap', 'CustomResourceDefinition'],
  });
  parameters = createParametersInformer(kubeConfig);
  await Promise.all([store.start(), parameters.start()]);
  const source = createStoreSource(store, parameters);
  controller = new GatewayClassController({ controllerName, source, kubeConfig });
  controller.on('error', (error) => errors.push(error));
  controller.start();
});

afterAll(async () => {
  await controller?.stop();
  await parameters?.stop();
  await store?.stop();
  await server?.stop();
});

async function createClass(name: string, spec: Record<string, unknown> = {}): Promise<void> {
  await custom.createClusterCustomObject({
    ...classes,
    body: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name },
      spec: { controllerName, ...spec },
    },
  });
}

async function readClass(name: string): Promise<GatewayClass> {
  return (await custom.getClusterCustomObject({ ...classes, name })) as GatewayClass;
}

async function isAbsent(name: string): Promise<boolean> {
  try {
    await readClass(name);
    return false;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return true;
    throw error;
  }
}

async function patchClass(name: string, body: object): Promise<void> {
  await custom.patchClusterCustomObject({ ...classes, name, body }, mergePatch);
}

async function createGateway(name: string, className: string): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...gateways,
    namespace: 'default',
    body: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name },
      spec: { gatewayClassName: className, listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
    },
  });
}

async function deleteGateway(name: string): Promise<void> {
  await custom.deleteNamespacedCustomObject({ ...gateways, namespace: 'default', name });
}

function condition(gatewayClass: GatewayClass, type: string): Condition | undefined {
  return gatewayClass.status?.conditions?.find((c) => c.type === type);
}

/** The conformance suite's GatewayClassMustHaveLatestConditions: every condition at the current generation. */
function hasLatestConditions(gatewayClass: GatewayClass): boolean {
  const conditions = gatewayClass.status?.conditions ?? [];
  return (
    conditions.length > 0 &&
    conditions.every((c) => c.observedGeneration === gatewayClass.metadata?.generation)
  );
}

async function waitForClass(
  name: string,
  check: (gatewayClass: GatewayClass) => void,
): Promise<GatewayClass> {
  return vi.waitFor(async () => {
    const gatewayClass = await readClass(name);
    check(gatewayClass);
    return gatewayClass;
  }, waitOptions);
}

describe('GatewayClassController against local-apiserver', () => {
  it('marks a class for its controller Accepted=True with SupportedVersion=True at the current generation', async () => {
    await createClass('internet');
    const accepted = await waitForClass('internet', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')).toMatchObject({ status: 'True', reason: 'Accepted' });
    });
    expect(condition(accepted, 'SupportedVersion')).toMatchObject({
      status: 'True',
      reason: 'SupportedVersion',
      message: 'Gateway API CRDs are at bundle version v1.6.1 (supported: v1.6.x)',
    });
    expect(hasLatestConditions(accepted)).toBe(true);
    expect(accepted.status?.conditions?.filter((c) => c.type === 'Accepted')).toHaveLength(1);
  });

  it('leaves a class for another controller untouched', async () => {
    await custom.createClusterCustomObject({
      ...classes,
      body: {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'GatewayClass',
        metadata: { name: 'someone-else' },
        spec: { controllerName: 'example.net/gateway-controller' },
      },
    });
    const created = await readClass('someone-else');
    await createGateway('foreign-gateway', 'someone-else');
    // A class of ours created afterwards is a barrier: once it is accepted, the foreign one was seen.
    await createClass('barrier');
    await waitForClass('barrier', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')?.status).toBe('True');
    });
    const after = await readClass('someone-else');
    expect(after.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(after.metadata?.finalizers ?? []).toEqual([]);
    expect(
      after.status?.conditions?.some((c) => c.reason === 'Accepted' || c.reason === 'InvalidParameters'),
    ).not.toBe(true);
    await deleteGateway('foreign-gateway');
  });

  it('reports InvalidParameters for a bad ConfigMap reference and recovers when it is fixed', async () => {
    await createClass('with-config', { parametersRef: { group: '', kind: 'ConfigMap', name: 'gw-config' } });
    await waitForClass('with-config', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')).toMatchObject({
        status: 'False',
        reason: 'InvalidParameters',
        message: expect.stringContaining('spec.parametersRef.namespace is required'),
      });
    });

    await patchClass('with-config', { spec: { parametersRef: { namespace: 'infra' } } });
    await waitForClass('with-config', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')?.message).toBe(
        'spec.parametersRef: ConfigMap "infra/gw-config" not found',
      );
      expect(hasLatestConditions(gatewayClass)).toBe(true);
    });

    await core.createNamespacedConfigMap({
      namespace: 'infra',
      body: { metadata: { name: 'gw-config' }, data: { workerConnections: 'plenty', logLevel: 'warn' } },
    });
    await waitForClass('with-config', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')).toMatchObject({
        status: 'False',
        reason: 'InvalidParameters',
        message:
          'spec.parametersRef: ConfigMap "infra/gw-config" is invalid: ' +
          'data.workerConnections: "plenty" is not an integer from 1 to 65535',
      });
    });

    await core.patchNamespacedConfigMap(
      { namespace: 'infra', name: 'gw-config', body: { data: { workerConnections: '2048' } } },
      mergePatch,
    );
    const fixed = await waitForClass('with-config', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')).toMatchObject({ status: 'True', reason: 'Accepted' });
    });
    expect(condition(fixed, 'Accepted')?.message).toContain('parameters from ConfigMap "infra/gw-config"');
  });

  it('accepts cluster-scoped IngressKitParameters and refuses a namespace on the reference', async () => {
    await custom.createClusterCustomObject({
      group: 'ingresskit.dev',
      version: 'v1alpha1',
      plural: 'ingresskitparameters',
      body: {
        apiVersion: 'ingresskit.dev/v1alpha1',
        kind: 'IngressKitParameters',
        metadata: { name: 'edge' },
        spec: { hsts: true, proxyReadTimeout: '90s' },
      },
    });
    const ref = { group: 'ingresskit.dev', kind: 'IngressKitParameters', name: 'edge' };
    await createClass('with-own-parameters', { parametersRef: { ...ref, namespace: 'infra' } });
    await waitForClass('with-own-parameters', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')).toMatchObject({
        reason: 'InvalidParameters',
        message: expect.stringContaining('spec.parametersRef.namespace must not be set'),
      });
    });
    await patchClass('with-own-parameters', { spec: { parametersRef: { namespace: null } } });
    await waitForClass('with-own-parameters', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')).toMatchObject({
        status: 'True',
        message: expect.stringContaining('parameters from IngressKitParameters "edge"'),
      });
    });
  });

  it('keeps the gateway-exists finalizer exactly while Gateways reference the class', async () => {
    await createClass('shared');
    await waitForClass('shared', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')?.status).toBe('True');
    });
    expect((await readClass('shared')).metadata?.finalizers ?? []).toEqual([]);

    await createGateway('first', 'shared');
    await waitForClass('shared', (gatewayClass) => {
      expect(gatewayClass.metadata?.finalizers).toEqual([GATEWAY_EXISTS_FINALIZER]);
    });
    await createGateway('second', 'shared');
    await deleteGateway('first');
    // Still in use by the second Gateway: a reconcile after the delete must keep the finalizer.
    await createClass('shared-barrier');
    await waitForClass('shared-barrier', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')?.status).toBe('True');
    });
    expect((await readClass('shared')).metadata?.finalizers).toEqual([GATEWAY_EXISTS_FINALIZER]);

    await deleteGateway('second');
    await waitForClass('shared', (gatewayClass) => {
      expect(gatewayClass.metadata?.finalizers ?? []).toEqual([]);
    });
  });

  it('leaves a deleted class terminating until its last Gateway is gone', async () => {
    await createClass('doomed');
    await createGateway('holder', 'doomed');
    await waitForClass('doomed', (gatewayClass) => {
      expect(gatewayClass.metadata?.finalizers).toEqual([GATEWAY_EXISTS_FINALIZER]);
    });
    await custom.deleteClusterCustomObject({ ...classes, name: 'doomed' });
    const terminating = await readClass('doomed');
    expect(terminating.metadata?.deletionTimestamp).toBeTruthy();

    await createClass('doomed-barrier');
    await waitForClass('doomed-barrier', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')?.status).toBe('True');
    });
    expect(await isAbsent('doomed')).toBe(false);

    await deleteGateway('holder');
    await vi.waitFor(async () => expect(await isAbsent('doomed')).toBe(true), waitOptions);
  });

  it('follows a spec edit with every condition (conformance GatewayClassObservedGenerationBump)', async () => {
    const name = 'gatewayclass-observed-generation-bump';
    await createClass(name, { description: 'old' });
    const original = await waitForClass(name, (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')).toBeDefined();
      expect(hasLatestConditions(gatewayClass)).toBe(true);
    });

    await patchClass(name, { spec: { description: 'new' } });
    const updated = await waitForClass(name, (gatewayClass) => {
      expect(gatewayClass.metadata?.generation).not.toBe(original.metadata?.generation);
      expect(condition(gatewayClass, 'Accepted')).toBeDefined();
      expect(hasLatestConditions(gatewayClass)).toBe(true);
    });
    expect(updated.metadata?.generation).toBeGreaterThan(original.metadata?.generation ?? 0);
    expect(condition(updated, 'Accepted')?.lastTransitionTime).toBe(
      condition(original, 'Accepted')?.lastTransitionTime,
    );
  });

  it('reports SupportedVersion=False and accepts on a best-effort basis when a CRD is at another version', async () => {
    const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
    const setVersion = (version: string) =>
      extensions.patchCustomResourceDefinition(
        {
          name: 'gateways.gateway.networking.k8s.io',
          body: { metadata: { annotations: { [BUNDLE_VERSION_ANNOTATION]: version } } },
        },
        mergePatch,
      );
    await setVersion('v1.7.0');
    await waitForClass('internet', (gatewayClass) => {
      expect(condition(gatewayClass, 'SupportedVersion')).toMatchObject({
        status: 'False',
        reason: 'UnsupportedVersion',
        message: expect.stringContaining('bundle version v1.7.0 on gateways.gateway.networking.k8s.io'),
      });
      expect(condition(gatewayClass, 'Accepted')).toMatchObject({ status: 'True', reason: 'Accepted' });
    });
    await setVersion('v1.6.1');
    await waitForClass('internet', (gatewayClass) => {
      expect(condition(gatewayClass, 'SupportedVersion')?.status).toBe('True');
    });
  });

  it('retries with backoff when status writes fail and converges', async () => {
    const before = errors.length;
    server.faults.failNext(3, 500, { match: { method: 'PUT', path: /\/gatewayclasses\/flaky\/status/ } });
    await createClass('flaky');
    await waitForClass('flaky', (gatewayClass) => {
      expect(condition(gatewayClass, 'Accepted')?.status).toBe('True');
    });
    const injected = errors.splice(before);
    expect(injected).toHaveLength(3);
    expect(injected).toEqual(
      Array.from({ length: 3 }, () =>
        expect.objectContaining({ name: 'GatewayClassApiError', statusCode: 500 }),
      ),
    );
  });

  it('reported no reconcile errors', () => {
    expect(errors).toEqual([]);
  });
});
