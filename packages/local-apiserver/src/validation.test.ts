import { describe, expect, it } from 'vitest';
import type { KubeObject } from './objects.js';
import {
  validateIngressClassSpec,
  validateIngressSpec,
  validateLeaseSpec,
  validateName,
  validateObjectMeta,
} from './validation.js';

function object(metadata: KubeObject['metadata'], rest: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'X', metadata, ...rest };
}

describe('validateName', () => {
  it.each([
    ['web', 'subdomain', 0],
    ['a.b-c.d', 'subdomain', 0],
    ['Web', 'subdomain', 1],
    ['-web', 'subdomain', 1],
    ['a.b', 'label', 1],
    ['1abc', 'dns1035', 1],
    ['abc1', 'dns1035', 0],
    ['a'.repeat(64), 'label', 1],
    ['A'.repeat(64), 'label', 2],
  ] as const)('%j under %s gives %i error(s)', (name, rule, count) => {
    expect(validateName(name, rule, 'metadata.name')).toHaveLength(count);
  });
});

describe('validateObjectMeta', () => {
  it('requires a name when none is given', () => {
    expect(validateObjectMeta(object({}), 'subdomain')).toEqual([
      { type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' },
    ]);
  });

  it('rejects bad label keys, label values and malformed finalizers', () => {
    const errors = validateObjectMeta(
      object({ name: 'a', labels: { 'bad key': 'x', ok: 'bad value' }, finalizers: ['not a name'] }),
      'subdomain',
    );
    expect(errors.map((error) => error.field)).toEqual([
      'metadata.labels',
      'metadata.labels',
      'metadata.finalizers[0]',
    ]);
  });

  it('accepts a well-formed object', () => {
    expect(
      validateObjectMeta(
        object({
          name: 'a',
          labels: { 'app.kubernetes.io/name': 'web' },
          annotations: { x: 'y' },
          finalizers: ['a.io/f', 'gateway-exists-finalizer.gateway.networking.k8s.io'],
        }),
        'subdomain',
      ),
    ).toEqual([]);
  });
});

describe('validateLeaseSpec', () => {
  it('rejects a zero duration and a negative transition count', () => {
    const errors = validateLeaseSpec(
      object({ name: 'l' }, { spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } }),
    );
    expect(errors.map((error) => [error.field, error.type])).toEqual([
      ['spec.leaseDurationSeconds', 'FieldValueInvalid'],
      ['spec.leaseTransitions', 'FieldValueInvalid'],
    ]);
  });

  it('leaves MicroTimes to the decoder and accepts a positive duration', () => {
    expect(
      validateLeaseSpec(
        object(
          { name: 'l' },
          { spec: { renewTime: '2024-01-01T00:00:00.123Z', leaseDurationSeconds: 15, holderIdentity: 'x' } },
        ),
      ),
    ).toEqual([]);
  });
});

describe('validateIngressSpec', () => {
  it('checks hosts, path types and absolute paths', () => {
    const errors = validateIngressSpec(
      object(
        { name: 'a' },
        {
          spec: {
            rules: [
              {
                host: 'Bad_Host',
                http: {
                  paths: [
                    {
                      path: 'x',
                      pathType: 'Prefix',
                      backend: { service: { name: 's', port: { number: 80 } } },
                    },
                    { path: '/', backend: {} },
                  ],
                },
              },
              { host: '*.example.com' },
              { host: '10.0.0.1' },
            ],
          },
        },
      ),
    );
    expect(errors.map((error) => error.field)).toEqual([
      'spec.rules[0].host',
      'spec.rules[0].http.paths[0].path',
      'spec.rules[0].http.paths[1].pathType',
      'spec.rules[2].host',
    ]);
  });
});

describe('validateIngressClassSpec', () => {
  it.each([
    ['example.com/nginx', 0],
    ['nginx', 1],
    ['', 1],
  ])('controller %j gives %i error(s)', (controller, count) => {
    expect(validateIngressClassSpec(object({ name: 'c' }, { spec: { controller } }))).toHaveLength(count);
  });
});
