import { describe, expect, it } from 'vitest';
import {
  createRegistry,
  requireResource,
  catchStatus,
  makeIngress,
  collect,
  crd,
} from './registry-fixtures.js';

describe('Registry', () => {
  describe('create', () => {
    it('sets uid, creationTimestamp, generation and a global resourceVersion, and clears status', () => {
      const registry = createRegistry();
      const ingresses = requireResource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      const before = registry.currentResourceVersion();
      const created = registry.create(ingresses, 'default', {
        ...makeIngress('a'),
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
      const ingresses = requireResource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      registry.create(ingresses, 'default', makeIngress('a'));
      expect(catchStatus(() => registry.create(ingresses, 'default', makeIngress('a')))).toMatchObject({
        code: 409,
        reason: 'AlreadyExists',
      });
      expect(catchStatus(() => registry.create(ingresses, 'nope', makeIngress('a')))).toMatchObject({
        code: 404,
        message: 'namespaces "nope" not found',
        details: { name: 'nope', kind: 'namespaces' },
      });
      expect(catchStatus(() => registry.create(ingresses, 'default', makeIngress('Bad_Name')))).toMatchObject(
        {
          code: 422,
          reason: 'Invalid',
          details: { kind: 'Ingress', causes: [{ field: 'metadata.name', reason: 'FieldValueInvalid' }] },
        },
      );
    });

    it('completes generateName with five random characters', () => {
      const registry = createRegistry();
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      const entry = registry.create(configmaps, 'default', { metadata: { generateName: 'cfg-' } });
      expect(entry.object.metadata.name).toMatch(/^cfg-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    });

    it('sets the newest default IngressClass on an Ingress without a class', () => {
      const registry = createRegistry();
      const classes = requireResource(registry, 'networking.k8s.io', 'v1', 'ingressclasses');
      const ingresses = requireResource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      registry.create(classes, undefined, {
        metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
        spec: { controller: 'k8s.io/ingress-nginx' },
      });
      expect(registry.create(ingresses, 'default', makeIngress('a')).object.spec).toMatchObject({
        ingressClassName: 'nginx',
      });
      // Updates are never re-defaulted.
      const plain = registry.create(ingresses, 'default', {
        ...makeIngress('b'),
        spec: { ingressClassName: 'x' },
      });
      const { ingressClassName: _dropped, ...spec } = plain.object.spec as Record<string, unknown>;
      const updated = registry.update(ingresses, 'default', 'b', { ...plain.object, spec });
      expect(updated.object.spec).not.toHaveProperty('ingressClassName');
    });

    it('answers 400 BadRequest while decoding a Lease whose MicroTime has three fractional digits', () => {
      const registry = createRegistry();
      const leases = requireResource(registry, 'coordination.k8s.io', 'v1', 'leases');
      const status = catchStatus(() =>
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
      const leases = requireResource(registry, 'coordination.k8s.io', 'v1', 'leases');
      const status = catchStatus(() =>
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
      const ingresses = requireResource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const created = registry.create(ingresses, 'default', makeIngress('a'));
      const labelled = { ...created.object, metadata: { ...created.object.metadata, labels: { x: '1' } } };
      registry.update(ingresses, 'default', 'a', labelled);
      expect(catchStatus(() => registry.update(ingresses, 'default', 'a', labelled))).toMatchObject({
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
      const ingresses = requireResource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const created = registry.create(ingresses, 'default', makeIngress('a'));
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
      const ingresses = requireResource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const created = registry.create(ingresses, 'default', makeIngress('a'));
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
      const ingresses = requireResource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      const created = registry.create(ingresses, 'default', makeIngress('a'));
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
      const crds = requireResource(registry, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
      registry.create(crds, undefined, crd);
      const checksums = requireResource(registry, 'tengine.taobao.org', 'v1', 'ingresschecksums');
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
        catchStatus(() => registry.update(checksums, 'default', 'c', { ...created.object, metadata })),
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
      const classes = requireResource(registry, 'networking.k8s.io', 'v1', 'ingressclasses');
      const created = registry.create(classes, undefined, {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: 'ingresskit.dev/ingress-controller' },
      });
      expect(
        catchStatus(() =>
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

  describe('delete', () => {
    it('marks an object with finalizers, then removes it when the last finalizer goes', () => {
      const registry = createRegistry();
      const ingresses = requireResource(registry, 'networking.k8s.io', 'v1', 'ingresses');
      registry.create(ingresses, 'default', {
        ...makeIngress('a'),
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
        catchStatus(() =>
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
      expect(catchStatus(() => registry.get(ingresses, 'default', 'a'))).toMatchObject({ code: 404 });
    });

    it('checks uid and resourceVersion preconditions', () => {
      const registry = createRegistry();
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      registry.create(configmaps, 'default', { metadata: { name: 'c' } });
      expect(
        catchStatus(() => registry.delete(configmaps, 'default', 'c', { preconditions: { uid: 'other' } })),
      ).toMatchObject({ code: 409, reason: 'Conflict' });
      expect(registry.delete(configmaps, 'default', 'c').removed).toBe(true);
    });
  });
});
