import { createFakeClock, type FakeClock } from '@ingresskit/task-queue';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayClassClient, GatewayClassWriteResult } from './client.js';
import {
  GatewayClassController,
  type GatewayClassControllerOptions,
  type GatewayClassReconcileResult,
} from './controller.js';
import {
  ControllerStateError,
  GatewayClassConflictError,
  GatewayClassListenerError,
  InvalidControllerNameError,
  InvalidVersionPolicyError,
} from './errors.js';
import { GATEWAY_EXISTS_FINALIZER } from './finalizer.js';
import type { GatewayClassSource, GatewayClassSourceChange } from './source.js';
import type {
  Condition,
  CustomResourceDefinition,
  Gateway,
  GatewayClass,
  ParametersReference,
} from './types.js';
import { BUNDLE_VERSION_ANNOTATION } from './versions.js';

const controllerName = 'ingresskit.dev/gateway-controller';
const now = new Date('2026-05-01T10:00:00Z');

/** An in-memory source whose contents the test edits; every edit notifies listeners like the store does. */
class FakeSource implements GatewayClassSource {
  gatewayClasses = new Map<string, GatewayClass>();
  gateways = new Map<string, Gateway>();
  parameters = new Map<string, unknown>();
  crds: CustomResourceDefinition[] = ['gatewayclasses', 'gateways'].map((plural) => ({
    metadata: {
      name: `${plural}.gateway.networking.k8s.io`,
      annotations: { [BUNDLE_VERSION_ANNOTATION]: 'v1.6.1' },
    },
    spec: { group: 'gateway.networking.k8s.io' },
  }));
  synced = true;
  readonly listeners = new Set<(change: GatewayClassSourceChange) => void>();

  listGatewayClasses = () => this.gatewayClasses.values();
  listGatewaysForClass = (className: string) =>
    [...this.gateways.values()].filter((gateway) => gateway.spec?.gatewayClassName === className);
  listCustomResourceDefinitions = () => this.crds;
  getParametersObject = (ref: ParametersReference) =>
    this.parameters.get(`${ref.kind}/${ref.namespace ?? ''}/${ref.name}`);
  hasSynced = () => this.synced;
  subscribe(listener: (change: GatewayClassSourceChange) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(change: GatewayClassSourceChange): void {
    for (const listener of this.listeners) listener(change);
  }
  setGateway(key: string, gateway: Gateway | undefined): void {
    const oldObject = this.gateways.get(key);
    if (gateway === undefined) this.gateways.delete(key);
    else this.gateways.set(key, gateway);
    this.emit({ kind: 'Gateway', oldObject, newObject: gateway });
  }
  setParameters(key: string, kind: string, object: unknown): void {
    const oldObject = this.parameters.get(key);
    if (object === undefined) this.parameters.delete(key);
    else this.parameters.set(key, object);
    this.emit({ kind, oldObject, newObject: object });
  }
}

type Call = { verb: 'get' | 'replace' | 'replaceStatus'; name: string };

/** An in-memory API server for one resource: resourceVersions, conflicts, status subresource, finalizers. */
class FakeClient implements GatewayClassClient {
  readonly objects = new Map<string, GatewayClass>();
  readonly calls: Call[] = [];
  conflictsToInject = 0;
  #resourceVersion = 1;

  put(gatewayClass: GatewayClass): GatewayClass {
    const stored = structuredClone(gatewayClass);
    stored.metadata = { generation: 1, ...stored.metadata, resourceVersion: String(++this.#resourceVersion) };
    this.objects.set(stored.metadata.name!, stored);
    return stored;
  }

  get(name: string, _signal?: AbortSignal): Promise<GatewayClass | undefined> {
    this.calls.push({ verb: 'get', name });
    const object = this.objects.get(name);
    return Promise.resolve(object === undefined ? undefined : structuredClone(object));
  }

  replace(gatewayClass: GatewayClass): Promise<GatewayClassWriteResult> {
    return this.#write('replace', gatewayClass, (stored) => {
      stored.metadata = { ...stored.metadata, finalizers: gatewayClass.metadata?.finalizers ?? [] };
    });
  }

  replaceStatus(gatewayClass: GatewayClass): Promise<GatewayClassWriteResult> {
    return this.#write('replaceStatus', gatewayClass, (stored) => {
      stored.status = structuredClone(gatewayClass.status);
    });
  }

  #write(verb: Call['verb'], body: GatewayClass, mutate: (stored: GatewayClass) => void) {
    const name = body.metadata?.name ?? '';
    this.calls.push({ verb, name });
    const stored = this.objects.get(name);
    if (stored === undefined) return Promise.resolve({ outcome: 'gone' } as const);
    if (this.conflictsToInject > 0 || body.metadata?.resourceVersion !== stored.metadata?.resourceVersion) {
      this.conflictsToInject = Math.max(0, this.conflictsToInject - 1);
      // A concurrent writer bumped the object.
      stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#resourceVersion) };
      return Promise.resolve({ outcome: 'conflict' } as const);
    }
    mutate(stored);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#resourceVersion) };
    if (stored.metadata.deletionTimestamp && (stored.metadata.finalizers ?? []).length === 0) {
      this.objects.delete(name);
    }
    return Promise.resolve({ outcome: 'written', gatewayClass: structuredClone(stored) } as const);
  }

  writes(): Call[] {
    return this.calls.filter((call) => call.verb !== 'get');
  }
}

function gatewayClass(name: string, spec: Partial<NonNullable<GatewayClass['spec']>> = {}): GatewayClass {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: { name, generation: 1 },
    spec: { controllerName, ...spec },
  };
}

function gateway(name: string, className: string): Gateway {
  return { metadata: { name, namespace: 'default' }, spec: { gatewayClassName: className } };
}

interface Harness {
  source: FakeSource;
  client: FakeClient;
  clock: FakeClock;
  controller: GatewayClassController;
}

const running: GatewayClassController[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((controller) => controller.stop()));
});

function setup(classes: GatewayClass[], options: Partial<GatewayClassControllerOptions> = {}): Harness {
  const source = new FakeSource();
  const client = new FakeClient();
  const clock = createFakeClock();
  for (const item of classes) {
    const stored = client.put(item);
    source.gatewayClasses.set(stored.metadata!.name!, stored);
  }
  const controller = new GatewayClassController({
    controllerName,
    source,
    client,
    clock,
    wallClock: () => now.getTime(),
    ...options,
  });
  running.push(controller);
  return { source, client, clock, controller };
}

function nextResult(
  controller: GatewayClassController,
  predicate: (result: GatewayClassReconcileResult) => boolean = () => true,
): Promise<GatewayClassReconcileResult> {
  return new Promise((resolve) => {
    const listener = (result: GatewayClassReconcileResult): void => {
      if (!predicate(result)) return;
      controller.off('reconciled', listener);
      resolve(result);
    };
    controller.on('reconciled', listener);
  });
}

function nextError(controller: GatewayClassController): Promise<unknown> {
  return new Promise((resolve) => controller.once('error', (error) => resolve(error)));
}

function conditionsOf(client: FakeClient, name: string): readonly Condition[] {
  return client.objects.get(name)?.status?.conditions ?? [];
}

describe('GatewayClassController', () => {
  it('writes Accepted and SupportedVersion through the status subresource for its own class', async () => {
    const { client, controller } = setup([gatewayClass('internet')]);
    const done = nextResult(controller);
    controller.start();
    const result = await done;
    expect(result).toMatchObject({
      name: 'internet',
      outcome: 'updated',
      statusWritten: true,
      finalizer: 'unchanged',
    });
    expect(client.writes()).toEqual([{ verb: 'replaceStatus', name: 'internet' }]);
    expect(conditionsOf(client, 'internet')).toEqual([
      expect.objectContaining({
        type: 'Accepted',
        status: 'True',
        reason: 'Accepted',
        observedGeneration: 1,
      }),
      expect.objectContaining({ type: 'SupportedVersion', status: 'True', reason: 'SupportedVersion' }),
    ]);
  });

  it('leaves a class of another controller untouched', async () => {
    const foreign = gatewayClass('other', { controllerName: 'example.net/gateway' });
    const { client, controller, source } = setup([foreign]);
    source.gateways.set('default/g', gateway('g', 'other'));
    const done = nextResult(controller);
    controller.start();
    expect((await done).outcome).toBe('ignored');
    expect(client.calls).toEqual([]);
    expect(client.objects.get('other')?.metadata?.finalizers).toBeUndefined();
  });

  it('skips the write when the status is already as desired', async () => {
    const { client, controller } = setup([gatewayClass('internet')]);
    const first = nextResult(controller);
    controller.start();
    await first;
    const second = nextResult(controller);
    controller.enqueue('internet');
    expect((await second).outcome).toBe('unchanged');
    expect(client.writes()).toHaveLength(1);
  });

  it('re-reads and retries when a write conflicts', async () => {
    const { client, controller } = setup([gatewayClass('internet')]);
    client.conflictsToInject = 2;
    const done = nextResult(controller);
    controller.start();
    expect((await done).outcome).toBe('updated');
    expect(client.calls.map((call) => call.verb)).toEqual([
      'get',
      'replaceStatus',
      'get',
      'replaceStatus',
      'get',
      'replaceStatus',
    ]);
    expect(conditionsOf(client, 'internet')).toHaveLength(2);
  });

  it('reports a conflict error after the last attempt and retries with backoff', async () => {
    const { client, clock, controller } = setup([gatewayClass('internet')], { maxConflictAttempts: 2 });
    client.conflictsToInject = 2;
    const failed = nextError(controller);
    controller.start();
    expect(await failed).toBeInstanceOf(GatewayClassConflictError);
    const recovered = nextResult(controller);
    await clock.advanceAsync(1_000);
    expect((await recovered).outcome).toBe('updated');
  });

  it('adds the finalizer when a Gateway appears and removes it when the last one goes', async () => {
    const { client, controller, source } = setup([gatewayClass('internet')]);
    const initial = nextResult(controller);
    controller.start();
    await initial;

    const added = nextResult(controller);
    source.setGateway('default/a', gateway('a', 'internet'));
    expect(await added).toMatchObject({ finalizer: 'added', outcome: 'updated' });
    expect(client.objects.get('internet')?.metadata?.finalizers).toEqual([GATEWAY_EXISTS_FINALIZER]);

    const second = nextResult(controller);
    source.setGateway('default/b', gateway('b', 'internet'));
    expect(await second).toMatchObject({ finalizer: 'unchanged', outcome: 'unchanged' });

    const stillUsed = nextResult(controller);
    source.setGateway('default/a', undefined);
    expect((await stillUsed).finalizer).toBe('unchanged');
    expect(client.objects.get('internet')?.metadata?.finalizers).toEqual([GATEWAY_EXISTS_FINALIZER]);

    const removed = nextResult(controller);
    source.setGateway('default/b', undefined);
    expect((await removed).finalizer).toBe('removed');
    expect(client.objects.get('internet')?.metadata?.finalizers).toEqual([]);
  });

  it('keeps other finalizers when it adds or removes its own', async () => {
    const plain = gatewayClass('internet');
    const withOther = { ...plain, metadata: { ...plain.metadata, finalizers: ['example.net/cleanup'] } };
    const { client, controller, source } = setup([withOther]);
    source.gateways.set('default/a', gateway('a', 'internet'));
    const added = nextResult(controller);
    controller.start();
    await added;
    expect(client.objects.get('internet')?.metadata?.finalizers).toEqual([
      'example.net/cleanup',
      GATEWAY_EXISTS_FINALIZER,
    ]);
    const removed = nextResult(controller);
    source.setGateway('default/a', undefined);
    await removed;
    expect(client.objects.get('internet')?.metadata?.finalizers).toEqual(['example.net/cleanup']);
  });

  it('keeps a deleted class terminating while a Gateway uses it, then lets it go', async () => {
    const { client, controller, source } = setup([gatewayClass('internet')]);
    source.gateways.set('default/a', gateway('a', 'internet'));
    const added = nextResult(controller);
    controller.start();
    await added;

    const stored = client.objects.get('internet')!;
    stored.metadata = { ...stored.metadata, deletionTimestamp: '2026-05-01T10:01:00Z', generation: 2 };
    const whileDeleting = nextResult(controller);
    source.emit({ kind: 'GatewayClass', newObject: stored });
    expect((await whileDeleting).finalizer).toBe('unchanged');
    expect(client.objects.has('internet')).toBe(true);

    const released = nextResult(controller);
    source.setGateway('default/a', undefined);
    expect(await released).toMatchObject({ finalizer: 'removed', outcome: 'updated', statusWritten: false });
    expect(client.objects.has('internet')).toBe(false);
  });

  it('does not add the finalizer to a class that is already being deleted', async () => {
    const deleting = gatewayClass('internet');
    deleting.metadata = {
      ...deleting.metadata,
      deletionTimestamp: '2026-05-01T10:01:00Z',
      finalizers: ['x/y'],
    };
    const { client, controller, source } = setup([deleting]);
    source.gateways.set('default/a', gateway('a', 'internet'));
    const done = nextResult(controller);
    controller.start();
    expect((await done).finalizer).toBe('unchanged');
    expect(client.writes().map((call) => call.verb)).toEqual(['replaceStatus']);
  });

  it('neither reads nor writes while not the leader, and catches up on resync', async () => {
    let isLeader = false;
    const { client, controller } = setup([gatewayClass('internet')], { isLeader: () => isLeader });
    const following = nextResult(controller);
    controller.start();
    expect((await following).outcome).toBe('not-leader');
    expect(client.calls).toEqual([]);

    isLeader = true;
    const leading = nextResult(controller);
    controller.resync();
    expect((await leading).outcome).toBe('updated');
  });

  it('waits with backoff while the source has not synced', async () => {
    const { clock, controller, source } = setup([gatewayClass('internet')]);
    source.synced = false;
    const waiting = nextResult(controller);
    controller.start();
    expect((await waiting).outcome).toBe('not-synced');
    source.synced = true;
    const synced = nextResult(controller, (result) => result.outcome !== 'not-synced');
    await clock.advanceAsync(1_000);
    expect((await synced).outcome).toBe('updated');
  });

  it('moves to InvalidParameters and back when the referenced ConfigMap changes', async () => {
    const ref = { group: '', kind: 'ConfigMap', name: 'gw', namespace: 'infra' };
    const { client, controller, source } = setup([gatewayClass('internet', { parametersRef: ref })]);
    source.parameters.set('ConfigMap/infra/gw', {
      metadata: { name: 'gw', namespace: 'infra' },
      data: { hsts: 'true' },
    });
    const accepted = nextResult(controller);
    controller.start();
    expect((await accepted).evaluation?.accepted).toBe(true);
    const acceptedAt = conditionsOf(client, 'internet')[0]?.lastTransitionTime;

    const broken = nextResult(controller);
    source.setParameters('ConfigMap/infra/gw', 'ConfigMap', {
      metadata: { name: 'gw', namespace: 'infra' },
      data: { hsts: 'sometimes' },
    });
    await broken;
    expect(conditionsOf(client, 'internet')[0]).toMatchObject({
      status: 'False',
      reason: 'InvalidParameters',
      message: expect.stringContaining('data.hsts: "sometimes" is not true or false'),
    });

    const gone = nextResult(controller);
    source.setParameters('ConfigMap/infra/gw', 'ConfigMap', undefined);
    await gone;
    expect(conditionsOf(client, 'internet')[0]?.message).toBe(
      'spec.parametersRef: ConfigMap "infra/gw" not found',
    );

    const fixed = nextResult(controller);
    source.setParameters('ConfigMap/infra/gw', 'ConfigMap', {
      metadata: { name: 'gw', namespace: 'infra' },
      data: {},
    });
    await fixed;
    expect(conditionsOf(client, 'internet')[0]).toMatchObject({ status: 'True', reason: 'Accepted' });
    expect(acceptedAt).toBeDefined();
  });

  it('re-evaluates every own class when a Gateway API CRD changes', async () => {
    const { client, controller, source } = setup([gatewayClass('a'), gatewayClass('b')], {
      versionPolicy: { supportedVersions: ['v1.6.x'], onUnsupportedVersion: 'refuse' },
    });
    const initial = Promise.all([
      nextResult(controller, (r) => r.name === 'a'),
      nextResult(controller, (r) => r.name === 'b'),
    ]);
    controller.start();
    await initial;
    const upgraded = source.crds.map((crd) => ({
      ...crd,
      metadata: { ...crd.metadata, annotations: { [BUNDLE_VERSION_ANNOTATION]: 'v1.7.0' } },
    }));
    source.crds = upgraded;
    const both = Promise.all([
      nextResult(controller, (r) => r.name === 'a'),
      nextResult(controller, (r) => r.name === 'b'),
    ]);
    source.emit({ kind: 'CustomResourceDefinition', newObject: upgraded[0] });
    await both;
    for (const name of ['a', 'b']) {
      expect(conditionsOf(client, name)).toEqual([
        expect.objectContaining({ type: 'Accepted', status: 'False', reason: 'UnsupportedVersion' }),
        expect.objectContaining({ type: 'SupportedVersion', status: 'False', reason: 'UnsupportedVersion' }),
      ]);
    }
  });

  it('follows a generation bump with every condition it owns and keeps foreign conditions', async () => {
    const initial = gatewayClass('internet', { description: 'old' });
    const foreign: Condition = {
      type: 'example.net/Audited',
      status: 'True',
      reason: 'Audited',
      message: '',
      observedGeneration: 1,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    };
    initial.status = { conditions: [foreign] };
    const { client, controller, source } = setup([initial]);
    const first = nextResult(controller);
    controller.start();
    await first;
    const firstTransition = conditionsOf(client, 'internet')[1]?.lastTransitionTime;

    const stored = client.objects.get('internet')!;
    stored.spec = { ...stored.spec, description: 'new' };
    stored.metadata = { ...stored.metadata, generation: 2 };
    const bumped = nextResult(controller);
    source.emit({ kind: 'GatewayClass', newObject: stored });
    await bumped;
    const conditions = conditionsOf(client, 'internet');
    expect(conditions[0]).toEqual(foreign);
    expect(conditions.slice(1).map((c) => [c.type, c.observedGeneration])).toEqual([
      ['Accepted', 2],
      ['SupportedVersion', 2],
    ]);
    expect(conditions[1]?.lastTransitionTime).toBe(firstTransition);
  });

  it('does not overwrite conditions that record a newer generation', async () => {
    const ahead = gatewayClass('internet');
    ahead.status = {
      conditions: [
        {
          type: 'Accepted',
          status: 'False',
          reason: 'InvalidParameters',
          message: 'from a newer view',
          observedGeneration: 9,
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    const { client, controller } = setup([ahead]);
    const done = nextResult(controller);
    controller.start();
    expect((await done).outcome).toBe('stale');
    expect(client.writes()).toEqual([]);
  });

  it('publishes supportedFeatures sorted in the same write as Accepted', async () => {
    const { client, controller } = setup([gatewayClass('internet')], {
      supportedFeatures: ['HTTPRoute', 'Gateway'],
    });
    const done = nextResult(controller);
    controller.start();
    await done;
    expect(client.writes()).toHaveLength(1);
    expect(client.objects.get('internet')?.status?.supportedFeatures).toEqual([
      { name: 'Gateway' },
      { name: 'HTTPRoute' },
    ]);
  });

  it('resyncs every class on the configured period', async () => {
    const { client, clock, controller } = setup([gatewayClass('internet')], { resyncPeriodMs: 60_000 });
    const first = nextResult(controller);
    controller.start();
    await first;
    client.objects.get('internet')!.status = {};
    const again = nextResult(controller);
    await clock.advanceAsync(60_000);
    expect((await again).outcome).toBe('updated');
  });

  it('aborts in-flight requests on stop and emits nothing for them', async () => {
    const { client, controller } = setup([gatewayClass('internet')]);
    let seenSignal: AbortSignal | undefined;
    let markStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    client.get = (_name, signal) => {
      seenSignal = signal;
      markStarted();
      return new Promise((_, reject) =>
        signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    };
    const events: unknown[] = [];
    controller.on('reconciled', (result) => events.push(result));
    controller.on('error', (error) => events.push(error));
    controller.start();
    await started;
    await controller.stop();
    expect(seenSignal?.aborted).toBe(true);
    expect(events).toEqual([]);
  });

  it('reports a throwing reconciled listener as an error and keeps working', async () => {
    const { controller } = setup([gatewayClass('a'), gatewayClass('b')]);
    controller.once('reconciled', () => {
      throw new Error('listener bug');
    });
    const reported = nextError(controller);
    const second = nextResult(controller, (result) => result.name === 'b');
    controller.start();
    const error = await reported;
    expect(error).toBeInstanceOf(GatewayClassListenerError);
    expect((error as Error).cause).toEqual(new Error('listener bug'));
    expect((await second).outcome).toBe('updated');
  });

  it('refuses to start twice', async () => {
    const { controller } = setup([]);
    controller.start();
    expect(() => controller.start()).toThrow(ControllerStateError);
    await controller.stop();
    expect(() => controller.start()).toThrow(ControllerStateError);
  });

  it('unsubscribes from the source on stop', async () => {
    const { controller, source } = setup([gatewayClass('internet')]);
    controller.start();
    expect(source.listeners.size).toBe(1);
    await controller.stop();
    expect(source.listeners.size).toBe(0);
  });

  it('rejects an invalid controllerName or version pattern', () => {
    const source = new FakeSource();
    const client = new FakeClient();
    expect(() => new GatewayClassController({ controllerName: 'ingresskit', source, client })).toThrow(
      InvalidControllerNameError,
    );
    expect(
      () =>
        new GatewayClassController({
          controllerName,
          source,
          client,
          versionPolicy: { supportedVersions: ['>=1.6'], onUnsupportedVersion: 'accept' },
        }),
    ).toThrow(InvalidVersionPolicyError);
  });
});
