import { describe, expect, it } from 'vitest';
import { createRegistry, requireResource, catchStatus, crd } from './registry-fixtures.js';

describe('Registry', () => {
  describe('patch', () => {
    it('refuses strategic merge patches for custom resources with 415', () => {
      const registry = createRegistry();
      registry.create(
        requireResource(registry, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions'),
        undefined,
        crd,
      );
      const checksums = requireResource(registry, 'tengine.taobao.org', 'v1', 'ingresschecksums');
      registry.create(checksums, 'default', {
        apiVersion: 'tengine.taobao.org/v1',
        kind: 'IngressCheckSum',
        metadata: { name: 'c' },
      });
      expect(
        catchStatus(() => registry.patch(checksums, 'default', 'c', 'strategic', { spec: {} })),
      ).toMatchObject({
        code: 415,
        reason: 'UnsupportedMediaType',
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      });
    });

    it('treats a resourceVersion in the patch as a precondition', () => {
      const registry = createRegistry();
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      registry.create(configmaps, 'default', { metadata: { name: 'c' }, data: { a: '1' } });
      expect(
        catchStatus(() =>
          registry.patch(configmaps, 'default', 'c', 'merge', {
            metadata: { resourceVersion: '1' },
            data: { a: '2' },
          }),
        ),
      ).toMatchObject({ code: 409 });
      expect(catchStatus(() => registry.patch(configmaps, 'default', 'missing', 'merge', {}))).toMatchObject({
        code: 404,
      });
    });

    it('creates with server-side apply and reports conflicts between managers', () => {
      const registry = createRegistry();
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      const intent = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
      expect(
        registry.patch(configmaps, 'default', 'c', 'apply', intent, { fieldManager: 'alice' }).created,
      ).toBe(true);
      expect(
        catchStatus(() =>
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
      expect(catchStatus(() => registry.patch(configmaps, 'default', 'c', 'apply', intent))).toMatchObject({
        code: 400,
      });
      expect(
        catchStatus(() => registry.patch(configmaps, 'default', 'c', 'merge', {}, { force: true })),
      ).toMatchObject({ code: 422 });
    });
    it('answers 422 on the field patch when a merge patch leaves a MicroTime Go cannot decode', () => {
      const registry = createRegistry();
      const leases = requireResource(registry, 'coordination.k8s.io', 'v1', 'leases');
      registry.create(leases, 'default', { metadata: { name: 'l' }, spec: { holderIdentity: 'a' } });
      const status = catchStatus(() =>
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
});
