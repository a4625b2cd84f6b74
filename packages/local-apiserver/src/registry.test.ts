import { describe, expect, it } from 'vitest';
import { ApiStatusError, type KubeStatus } from './errors.js';
import { parseObjectFilter } from './object-filter.js';
import type { KubeObject } from './objects.js';
import { serializeEntry } from './entries.js';
import type { WatchSubscriber } from './fan-out.js';
import { Registry } from './registry.js';
import type { ResourceDefinition } from './resources.js';

const clock = () => new Date('2024-05-01T10:00:00.000Z');

function createRegistry(historyLimit = 100): Registry {
  return new Registry({ historyLimit, now: clock });
}

function resource(registry: Registry, group: string, version: string, plural: string): ResourceDefinition {
  const definition = registry.findResource(group, version, plural);
  if (!definition) throw new Error(`no ${plural}`);
  return definition;
}

function statusOf(fn: () => unknown): KubeStatus {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiStatusError) return error.status;
    throw error;
  }
  throw new Error('expected an ApiStatusError');
}

function ingress(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name },
    spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } },
    ...extra,
  };
}

function collect(
  definition: ResourceDefinition,
  registry: Registry,
  options: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
) {
  const events: { type: string; name: string; rv: string }[] = [];
  const subscriber: WatchSubscriber = {
    definition,
    filter: parseObjectFilter(definition, options.namespace, options.labelSelector, options.fieldSelector),
    write: (chunk) => {
      for (const line of chunk.toString().split('\n')) {
        if (line === '') continue;
        const event = JSON.parse(line) as { type: string; object: KubeObject };
        events.push({
          type: event.type,
          name: event.object.metadata.name ?? '',
          rv: event.object.metadata.resourceVersion ?? '',
        });
      }
    },
    end: () => events.push({ type: 'END', name: '', rv: '' }),
  };
  return { events, subscriber };
}

const crd: KubeObject = {
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
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object' } },
      },
    ],
  },
};

describe('Registry', () => {
  describe('create', () => {
    it('sets uid, creationTimestamp, generation and a global resourceVersion, and clears status', () => {
      const registry = createRegistry();
      const ingresses = resource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      const before = registry.currentResourceVersion();
      const created = registry.create(ingresses, 'default', {
        ...ingress('a'),
        status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      });
      const other = registry.create(configmaps, 'default', {
        metadata: { name: 'c', resourceVersion: '999', uid: 'mine' },
      });
      expect(created.object.metadata).toMatchObject({
        name: 'a',
        namespace: 'default',
        generation: 1,
        creationTimestamp: '2024-05-01T10:00:00Z',
        resourceVersion: String(before + 1),
      });
      expect(created.object.status).toBeUndefined();
      expect(other.object.metadata.resourceVersion).toBe(String(before + 2));
      expect(other.object.metadata.uid).not.toBe('mine');
      expect(other.object.metadata.generation).toBeUndefined();
    });

    it('answers 409 AlreadyExists, 404 for a missing namespace and 422 for a bad name', () => {
      const registry = createRegistry();
      const ingresses = resource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      registry.create(ingresses, 'default', ingress('a'));
      expect(statusOf(() => registry.create(ingresses, 'default', ingress('a')))).toMatchObject({
        code: 409,
        reason: 'AlreadyExists',
      });
      expect(statusOf(() => registry.create(ingresses, 'nope', ingress('a')))).toMatchObject({
        code: 404,
        message: 'namespaces "nope" not found',
        details: { name: 'nope', kind: 'namespaces' },
      });
      expect(statusOf(() => registry.create(ingresses, 'default', ingress('Bad_Name')))).toMatchObject({
        code: 422,
        reason: 'Invalid',
        details: { kind: 'Ingress', causes: [{ field: 'metadata.name', reason: 'FieldValueInvalid' }] },
      });
    });

    it('completes generateName with five random characters', () => {
      const registry = createRegistry();
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      const entry = registry.create(configmaps, 'default', { metadata: { generateName: 'cfg-' } });
      expect(entry.object.metadata.name).toMatch(/^cfg-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    });

    it('sets the newest default IngressClass on an Ingress without a class', () => {
      const registry = createRegistry();
      const classes = resource(registry, 'networking.k8s.io', 'v1', 'ingressclasses');
      const ingresses = resource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      registry.create(classes, undefined, {
        metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
        spec: { controller: 'k8s.io/ingress-nginx' },
      });
      expect(registry.create(ingresses, 'default', ingress('a')).object.spec).toMatchObject({
        ingressClassName: 'nginx',
      });
      // Updates are never re-defaulted.
      const plain = registry.create(ingresses, 'default', {
        ...ingress('b'),
        spec: { ingressClassName: 'x' },
      });
      const { ingressClassName: _dropped, ...spec } = plain.object.spec as Record<string, unknown>;
      const updated = registry.update(ingresses, 'default', 'b', { ...plain.object, spec });
      expect(updated.object.spec).not.toHaveProperty('ingressClassName');
    });

    it('answers 400 BadRequest while decoding a Lease whose MicroTime has three fractional digits', () => {
      const registry = createRegistry();
      const leases = resource(registry, 'coordination.k8s.io', 'v1', 'leases');
      const status = statusOf(() =>
        registry.create(leases, 'default', {
          metadata: { name: 'l' },
          spec: { renewTime: '2024-01-01T00:00:00.123Z', leaseDurationSeconds: 0 },
        }),
      );
      // Decoding fails before validation, so the bad duration is not reported alongside.
      expect(status).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'Lease in version "v1" cannot be handled as a Lease: parsing time "2024-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
        reason: 'BadRequest',
        code: 400,
      });
      expect(
        registry.create(leases, 'default', {
          metadata: { name: 'l' },
          spec: { renewTime: '2024-01-01T00:00:00.123456Z' },
        }).object.spec,
      ).toEqual({ renewTime: '2024-01-01T00:00:00.123456Z' });
    });

    it('answers 422 Invalid for a Lease whose MicroTimes decode but whose duration is not positive', () => {
      const registry = createRegistry();
      const leases = resource(registry, 'coordination.k8s.io', 'v1', 'leases');
      const status = statusOf(() =>
        registry.create(leases, 'default', {
          metadata: { name: 'l' },
          spec: { renewTime: '2024-01-01T00:00:00.123456Z', leaseDurationSeconds: 0 },
        }),
      );
      expect(status).toMatchObject({
        code: 422,
        reason: 'Invalid',
        details: { kind: 'Lease', causes: [{ field: 'spec.leaseDurationSeconds' }] },
      });
    });
  });

  describe('update', () => {
    it('answers 409 Conflict for a stale resourceVersion and allows unconditional Ingress updates', () => {
      const registry = createRegistry();
      const ingresses = resource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const created = registry.create(ingresses, 'default', ingress('a'));
      const labelled = { ...created.object, metadata: { ...created.object.metadata, labels: { x: '1' } } };
      registry.update(ingresses, 'default', 'a', labelled);
      expect(statusOf(() => registry.update(ingresses, 'default', 'a', labelled))).toMatchObject({
        code: 409,
        reason: 'Conflict',
      });
      const { resourceVersion: _rv, ...metadata } = labelled.metadata;
      const unconditional = registry.update(ingresses, 'default', 'a', {
        ...labelled,
        metadata: { ...metadata, labels: { x: '2' } },
      });
      expect(unconditional.object.metadata.labels).toEqual({ x: '2' });
    });

    it('bumps generation only for spec changes and keeps status on the main endpoint', () => {
      const registry = createRegistry();
      const ingresses = resource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const created = registry.create(ingresses, 'default', ingress('a'));
      const withStatus = registry.update(
        ingresses,
        'default',
        'a',
        { ...created.object, status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } } },
        { subresource: 'status' },
      );
      expect(withStatus.object.status).toEqual({ loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } });
      const labelled = registry.update(ingresses, 'default', 'a', {
        ...withStatus.object,
        metadata: { ...withStatus.object.metadata, labels: { a: 'b' } },
        status: {},
      });
      expect(labelled.object.metadata.generation).toBe(1);
      expect(labelled.object.status).toEqual(withStatus.object.status);
      const respecced = registry.update(ingresses, 'default', 'a', {
        ...labelled.object,
        spec: { rules: [{ host: 'x.example.com' }] },
      });
      expect(respecced.object.metadata.generation).toBe(2);
    });

    it('drops spec edits sent to the status subresource', () => {
      const registry = createRegistry();
      const ingresses = resource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const created = registry.create(ingresses, 'default', ingress('a'));
      const updated = registry.update(
        ingresses,
        'default',
        'a',
        { ...created.object, spec: { rules: [] }, status: { loadBalancer: {} } },
        { subresource: 'status' },
      );
      expect(updated.object.spec).toEqual(created.object.spec);
      expect(updated.object.metadata.generation).toBe(1);
    });

    it('returns the same object without a write or event when nothing changes', () => {
      const registry = createRegistry();
      const ingresses = resource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const created = registry.create(ingresses, 'default', ingress('a'));
      const { events, subscriber } = collect(ingresses, registry);
      registry.watch(ingresses, created.object.metadata.resourceVersion, subscriber);
      const rv = registry.currentResourceVersion();
      const reordered = {
        spec: created.object.spec,
        metadata: { ...created.object.metadata },
        kind: 'Ingress',
      };
      expect(registry.update(ingresses, 'default', 'a', reordered)).toBe(created);
      expect(registry.patch(ingresses, 'default', 'a', 'merge', { metadata: { labels: null } }).entry).toBe(
        created,
      );
      expect(registry.currentResourceVersion()).toBe(rv);
      expect(events).toEqual([]);
    });

    it('requires a resourceVersion for custom resources and bumps generation on any non-status change', () => {
      const registry = createRegistry();
      const crds = resource(registry, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
      registry.create(crds, undefined, crd);
      const checksums = resource(registry, 'tengine.taobao.org', 'v1', 'ingresschecksums');
      const created = registry.create(checksums, 'default', {
        apiVersion: 'tengine.taobao.org/v1',
        kind: 'IngressCheckSum',
        metadata: { name: 'c' },
        spec: { checksum: 'x' },
        status: { ignored: true },
      });
      expect(created.object.status).toBeUndefined();
      const { resourceVersion: _rv, ...metadata } = created.object.metadata;
      expect(
        statusOf(() => registry.update(checksums, 'default', 'c', { ...created.object, metadata })),
      ).toMatchObject({
        code: 422,
        message:
          'IngressCheckSum.tengine.taobao.org "c" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
      });
      const changed = registry.update(checksums, 'default', 'c', { ...created.object, extra: 1 });
      expect(changed.object.metadata.generation).toBe(2);
    });
  });

  describe('immutable fields', () => {
    it("refuses to change an IngressClass's spec.controller, as Kubernetes does, and keeps other changes open", () => {
      const registry = createRegistry();
      const classes = resource(registry, 'networking.k8s.io', 'v1', 'ingressclasses');
      const created = registry.create(classes, undefined, {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: 'ingresskit.dev/ingress-controller' },
      });
      expect(
        statusOf(() =>
          registry.update(classes, undefined, 'nginx', {
            ...created.object,
            spec: { controller: 'k8s.io/ingress-nginx' },
          }),
        ),
      ).toMatchObject({
        code: 422,
        message:
          'IngressClass.networking.k8s.io "nginx" is invalid: spec.controller: Invalid value: "k8s.io/ingress-nginx": field is immutable',
      });
      const labelled = registry.update(classes, undefined, 'nginx', {
        ...created.object,
        metadata: { ...created.object.metadata, labels: { team: 'edge' } },
      });
      expect(labelled.object.metadata.labels).toEqual({ team: 'edge' });
    });
  });

  describe('patch', () => {
    it('refuses strategic merge patches for custom resources with 415', () => {
      const registry = createRegistry();
      registry.create(
        resource(registry, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions'),
        undefined,
        crd,
      );
      const checksums = resource(registry, 'tengine.taobao.org', 'v1', 'ingresschecksums');
      registry.create(checksums, 'default', {
        apiVersion: 'tengine.taobao.org/v1',
        kind: 'IngressCheckSum',
        metadata: { name: 'c' },
      });
      expect(
        statusOf(() => registry.patch(checksums, 'default', 'c', 'strategic', { spec: {} })),
      ).toMatchObject({
        code: 415,
        reason: 'UnsupportedMediaType',
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      });
    });

    it('treats a resourceVersion in the patch as a precondition', () => {
      const registry = createRegistry();
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      registry.create(configmaps, 'default', { metadata: { name: 'c' }, data: { a: '1' } });
      expect(
        statusOf(() =>
          registry.patch(configmaps, 'default', 'c', 'merge', {
            metadata: { resourceVersion: '1' },
            data: { a: '2' },
          }),
        ),
      ).toMatchObject({ code: 409 });
      expect(statusOf(() => registry.patch(configmaps, 'default', 'missing', 'merge', {}))).toMatchObject({
        code: 404,
      });
    });

    it('creates with server-side apply and reports conflicts between managers', () => {
      const registry = createRegistry();
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      const intent = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
      expect(
        registry.patch(configmaps, 'default', 'c', 'apply', intent, { fieldManager: 'alice' }).created,
      ).toBe(true);
      expect(
        statusOf(() =>
          registry.patch(
            configmaps,
            'default',
            'c',
            'apply',
            { ...intent, data: { a: '2' } },
            { fieldManager: 'bob' },
          ),
        ),
      ).toMatchObject({
        code: 409,
        reason: 'Conflict',
        details: { causes: [{ reason: 'FieldManagerConflict', field: '.data.a' }] },
      });
      expect(statusOf(() => registry.patch(configmaps, 'default', 'c', 'apply', intent))).toMatchObject({
        code: 400,
      });
      expect(
        statusOf(() => registry.patch(configmaps, 'default', 'c', 'merge', {}, { force: true })),
      ).toMatchObject({ code: 422 });
    });
    it('answers 422 on the field patch when a merge patch leaves a MicroTime Go cannot decode', () => {
      const registry = createRegistry();
      const leases = resource(registry, 'coordination.k8s.io', 'v1', 'leases');
      registry.create(leases, 'default', { metadata: { name: 'l' }, spec: { holderIdentity: 'a' } });
      const status = statusOf(() =>
        registry.patch(leases, 'default', 'l', 'merge', { spec: { renewTime: '2024-01-01T00:00:00Z' } }),
      );
      expect(status).toMatchObject({
        code: 422,
        reason: 'Invalid',
        message: expect.stringMatching(
          /^ "" is invalid: patch: Invalid value: ".*": parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05\.000000Z07:00": cannot parse "Z" as "\.000000"$/,
        ),
        details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch' }] },
      });
      expect(registry.get(leases, 'default', 'l').object.spec).toEqual({ holderIdentity: 'a' });
    });
  });

  describe('delete', () => {
    it('marks an object with finalizers, then removes it when the last finalizer goes', () => {
      const registry = createRegistry();
      const ingresses = resource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      registry.create(ingresses, 'default', {
        ...ingress('a'),
        metadata: { name: 'a', finalizers: ['example.com/keep'] },
      });
      const { events, subscriber } = collect(ingresses, registry);
      registry.watch(ingresses, String(registry.currentResourceVersion()), subscriber);
      const marked = registry.delete(ingresses, 'default', 'a');
      expect(marked.removed).toBe(false);
      expect(marked.entry.object.metadata).toMatchObject({
        deletionTimestamp: '2024-05-01T10:00:00Z',
        deletionGracePeriodSeconds: 0,
        generation: 2,
      });
      expect(registry.delete(ingresses, 'default', 'a').entry).toBe(marked.entry);
      expect(
        statusOf(() =>
          registry.patch(ingresses, 'default', 'a', 'merge', {
            metadata: { finalizers: ['example.com/keep', 'example.com/more'] },
          }),
        ),
      ).toMatchObject({
        code: 422,
        details: { causes: [{ reason: 'FieldValueForbidden', field: 'metadata.finalizers' }] },
      });
      registry.patch(ingresses, 'default', 'a', 'json', [{ op: 'remove', path: '/metadata/finalizers' }]);
      expect(events.map((event) => event.type)).toEqual(['MODIFIED', 'DELETED']);
      expect(statusOf(() => registry.get(ingresses, 'default', 'a'))).toMatchObject({ code: 404 });
    });

    it('checks uid and resourceVersion preconditions', () => {
      const registry = createRegistry();
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      registry.create(configmaps, 'default', { metadata: { name: 'c' } });
      expect(
        statusOf(() => registry.delete(configmaps, 'default', 'c', { preconditions: { uid: 'other' } })),
      ).toMatchObject({ code: 409, reason: 'Conflict' });
      expect(registry.delete(configmaps, 'default', 'c').removed).toBe(true);
    });

    it('empties a namespace, then removes it', () => {
      const registry = createRegistry();
      const namespaces = resource(registry, '', 'v1', 'namespaces');
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      registry.create(namespaces, undefined, { metadata: { name: 'team' } });
      registry.create(configmaps, 'team', { metadata: { name: 'c' } });
      registry.create(configmaps, 'team', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      const result = registry.delete(namespaces, undefined, 'team');
      expect(result.entry.object.status).toEqual({ phase: 'Terminating' });
      expect(
        statusOf(() => registry.create(configmaps, 'team', { metadata: { name: 'new' } })),
      ).toMatchObject({ code: 403, reason: 'Forbidden' });
      expect(registry.list(configmaps, 'team').entries.map((entry) => entry.object.metadata.name)).toEqual([
        'held',
      ]);
      registry.patch(configmaps, 'team', 'held', 'merge', { metadata: { finalizers: null } });
      expect(registry.find(namespaces, undefined, 'team')).toBeUndefined();
    });
  });

  describe('list', () => {
    function seed(count: number) {
      const registry = createRegistry(1000);
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      for (let i = 0; i < count; i++) {
        registry.create(configmaps, i % 2 === 0 ? 'default' : 'kube-system', {
          metadata: { name: `c${String(i).padStart(2, '0')}`, labels: { even: String(i % 2 === 0) } },
        });
      }
      return { registry, configmaps };
    }

    it('pages with limit and continue, keeping the first page resourceVersion and a consistent view', () => {
      const { registry, configmaps } = seed(10);
      const first = registry.list(configmaps, undefined, { limit: 4 });
      expect(first.entries.map((entry) => entry.key)).toEqual([
        'default/c00',
        'default/c02',
        'default/c04',
        'default/c06',
      ]);
      expect(first.remainingItemCount).toBe(6);
      registry.delete(configmaps, 'default', 'c08');
      const second = registry.list(configmaps, undefined, { limit: 4, continue: first.continueToken });
      expect(second.resourceVersion).toBe(first.resourceVersion);
      expect(second.entries.map((entry) => entry.key)).toEqual([
        'default/c08',
        'kube-system/c01',
        'kube-system/c03',
        'kube-system/c05',
      ]);
      const third = registry.list(configmaps, undefined, { limit: 4, continue: second.continueToken });
      expect(third.entries.map((entry) => entry.key)).toEqual(['kube-system/c07', 'kube-system/c09']);
      expect(third.continueToken).toBeUndefined();
    });

    it('filters by namespace and selectors and omits remainingItemCount with selectors', () => {
      const { registry, configmaps } = seed(10);
      const page = registry.list(configmaps, 'kube-system', {
        labelSelector: 'even=false',
        fieldSelector: 'metadata.name!=c01',
        limit: 2,
      });
      expect(page.entries.map((entry) => entry.object.metadata.name)).toEqual(['c03', 'c05']);
      expect(page.remainingItemCount).toBeUndefined();
      expect(page.continueToken).toBeDefined();
      expect(
        statusOf(() => registry.list(configmaps, undefined, { fieldSelector: 'data.a=1' })),
      ).toMatchObject({
        code: 400,
        message: 'field label not supported: data.a',
      });
    });

    it('serves an exact resourceVersion from history, 410 when it is gone and 504 when it is in the future', () => {
      const { registry, configmaps } = seed(3);
      const rv = registry.currentResourceVersion();
      registry.delete(configmaps, 'default', 'c00');
      const exact = registry.list(configmaps, undefined, {
        resourceVersion: String(rv),
        resourceVersionMatch: 'Exact',
      });
      expect(exact.entries.map((entry) => entry.key)).toEqual([
        'default/c00',
        'default/c02',
        'kube-system/c01',
      ]);
      expect(exact.resourceVersion).toBe(rv);
      expect(registry.list(configmaps, undefined, { resourceVersion: String(rv) }).entries).toHaveLength(2);
      expect(
        statusOf(() => registry.list(configmaps, undefined, { resourceVersion: '999999' })),
      ).toMatchObject({ code: 504, reason: 'Timeout' });
      registry.expireHistory();
      expect(
        statusOf(() =>
          registry.list(configmaps, undefined, {
            resourceVersion: String(rv),
            resourceVersionMatch: 'Exact',
          }),
        ),
      ).toMatchObject({ code: 410, reason: 'Expired' });
      expect(
        statusOf(() => registry.list(configmaps, undefined, { resourceVersionMatch: 'Exact' })),
      ).toMatchObject({ code: 422 });
      expect(statusOf(() => registry.list(configmaps, undefined, { continue: 'garbage!' }))).toMatchObject({
        code: 400,
      });
    });
  });

  describe('watch', () => {
    it('sends current objects as ADDED for an unset resourceVersion, then live changes', () => {
      const registry = createRegistry();
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      registry.create(configmaps, 'default', { metadata: { name: 'a' } });
      const { events, subscriber } = collect(configmaps, registry);
      registry.watch(configmaps, undefined, subscriber);
      registry.create(configmaps, 'default', { metadata: { name: 'b' } });
      registry.patch(configmaps, 'default', 'b', 'merge', { data: { x: 'y' } });
      registry.delete(configmaps, 'default', 'a');
      const rv = String(registry.currentResourceVersion());
      expect(events.map((event) => `${event.type} ${event.name}`)).toEqual([
        'ADDED a',
        'ADDED b',
        'MODIFIED b',
        'DELETED a',
      ]);
      expect(events.at(-1)?.rv).toBe(rv);
    });

    it('replays history after a resourceVersion and refuses one older than the history', () => {
      const registry = createRegistry(2);
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      const start = String(registry.currentResourceVersion());
      registry.create(configmaps, 'default', { metadata: { name: 'a' } });
      const afterA = String(registry.currentResourceVersion());
      registry.create(configmaps, 'default', { metadata: { name: 'b' } });
      registry.create(configmaps, 'default', { metadata: { name: 'c' } });
      const { events, subscriber } = collect(configmaps, registry);
      registry.watch(configmaps, afterA, subscriber);
      expect(events.map((event) => event.name)).toEqual(['b', 'c']);
      expect(
        statusOf(() => registry.watch(configmaps, start, collect(configmaps, registry).subscriber)),
      ).toMatchObject({
        code: 410,
        reason: 'Expired',
        message: `too old resource version: ${start} (${afterA})`,
      });
    });

    it('turns selector transitions into ADDED and DELETED', () => {
      const registry = createRegistry();
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      registry.create(configmaps, 'default', { metadata: { name: 'a', labels: { app: 'x' } } });
      const { events, subscriber } = collect(configmaps, registry, { labelSelector: 'app=web' });
      registry.watch(configmaps, String(registry.currentResourceVersion()), subscriber);
      registry.patch(configmaps, 'default', 'a', 'merge', { metadata: { labels: { app: 'web' } } });
      registry.patch(configmaps, 'default', 'a', 'merge', { data: { k: 'v' } });
      registry.patch(configmaps, 'default', 'a', 'merge', { metadata: { labels: { app: 'other' } } });
      expect(events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(events[2]?.rv).toBe(String(registry.currentResourceVersion()));
    });

    it('ends watches on dropWatches', () => {
      const registry = createRegistry();
      const configmaps = resource(registry, '', 'v1', 'configmaps');
      const { events, subscriber } = collect(configmaps, registry);
      registry.watch(configmaps, undefined, subscriber);
      expect(registry.countWatches()).toBe(1);
      expect(registry.dropWatches()).toBe(1);
      expect(events).toEqual([{ type: 'END', name: '', rv: '' }]);
      expect(registry.countWatches()).toBe(0);
    });
  });

  describe('custom resource definitions', () => {
    it('serves every served version of a CRD from one storage and stops when it is deleted', () => {
      const registry = createRegistry();
      const crds = resource(registry, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
      const twoVersions = {
        ...crd,
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Cluster',
          names: { plural: 'widgets', kind: 'Widget' },
          versions: [
            { name: 'v1beta1', served: true, storage: false },
            { name: 'v1', served: true, storage: true },
          ],
        },
      };
      const stored = registry.create(crds, undefined, twoVersions);
      expect(stored.object.status).toMatchObject({
        acceptedNames: { plural: 'widgets', kind: 'Widget', listKind: 'WidgetList' },
        storedVersions: ['v1'],
      });
      const v1 = resource(registry, 'example.com', 'v1', 'widgets');
      const beta = resource(registry, 'example.com', 'v1beta1', 'widgets');
      const created = registry.create(beta, undefined, {
        apiVersion: 'example.com/v1beta1',
        kind: 'Widget',
        metadata: { name: 'w' },
      });
      expect(created.object.apiVersion).toBe('example.com/v1');
      expect(JSON.parse(serializeEntry(created, beta)).apiVersion).toBe('example.com/v1beta1');
      expect(registry.get(v1, undefined, 'w').object.metadata.name).toBe('w');
      registry.delete(crds, undefined, 'widgets.example.com');
      expect(registry.findResource('example.com', 'v1', 'widgets')).toBeUndefined();
    });

    it('rejects a CRD whose name does not match its names and group', () => {
      const registry = createRegistry();
      const crds = resource(registry, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
      expect(
        statusOf(() => registry.create(crds, undefined, { ...crd, metadata: { name: 'wrong.example.com' } })),
      ).toMatchObject({
        code: 422,
        details: { causes: [{ field: 'metadata.name' }] },
      });
    });
  });

  describe('events', () => {
    it('serves one stored Event through both core/v1 and events.k8s.io/v1', () => {
      const registry = createRegistry();
      const core = resource(registry, '', 'v1', 'events');
      const modern = resource(registry, 'events.k8s.io', 'v1', 'events');
      const created = registry.create(modern, 'default', {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'e' },
        regarding: { kind: 'Ingress', name: 'a' },
        note: 'synced',
        reason: 'Sync',
        reportingController: 'ingresskit',
        eventTime: '2024-05-01T10:00:00.000000Z',
      });
      expect(registry.get(core, 'default', 'e').object).toMatchObject({
        involvedObject: { kind: 'Ingress', name: 'a' },
        message: 'synced',
      });
      expect(JSON.parse(serializeEntry(created, modern))).toMatchObject({
        apiVersion: 'events.k8s.io/v1',
        note: 'synced',
        regarding: { name: 'a' },
      });
      expect(registry.list(core, 'default', { fieldSelector: 'involvedObject.name=a' }).entries).toHaveLength(
        1,
      );
    });

    it('answers 400 BadRequest for an events.k8s.io Event whose series time has seven fractional digits', () => {
      const registry = createRegistry();
      const modern = resource(registry, 'events.k8s.io', 'v1', 'events');
      const status = statusOf(() =>
        registry.create(modern, 'default', {
          metadata: { name: 'e' },
          eventTime: '2024-05-01T10:00:00.000000Z',
          series: { count: 2, lastObservedTime: '2024-05-01T10:00:00.1234567Z' },
        }),
      );
      expect(status).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message:
          'Event in version "v1" cannot be handled as a Event: parsing time "2024-05-01T10:00:00.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00"',
      });
    });
  });
});
