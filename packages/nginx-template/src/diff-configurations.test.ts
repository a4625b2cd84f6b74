import { describe, expect, it } from 'vitest';
import { buildConfiguration, diffConfigurations, type ConfigurationInput } from './index.js';
import { A, endpointSlice, ingress, path, service, tlsSecret } from './testing/fixtures.js';

function build(overrides: Partial<ConfigurationInput> = {}) {
  return buildConfiguration({
    ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] })],
    services: [service('app'), service('other')],
    endpointSlices: [endpointSlice('app', 8080, ['10.0.0.1'])],
    ...overrides,
  }).configuration;
}

describe('diffConfigurations', () => {
  it('needs a reload and a POST when nothing runs yet', () => {
    expect(diffConfigurations(undefined, build())).toEqual({
      reloadRequired: true,
      backendsChanged: true,
      certificatesChanged: false,
      reasons: ['no running configuration'],
    });
  });

  it('needs nothing for an equal configuration', () => {
    expect(diffConfigurations(build(), build())).toEqual({
      reloadRequired: false,
      backendsChanged: false,
      certificatesChanged: false,
      reasons: [],
    });
  });

  it('needs only a POST, never a reload, when only endpoints change', () => {
    const next = build({ endpointSlices: [endpointSlice('app', 8080, ['10.0.0.1', '10.0.0.2'])] });
    expect(diffConfigurations(build(), next)).toEqual({
      reloadRequired: false,
      backendsChanged: true,
      certificatesChanged: false,
      reasons: ['endpoints of backend default/app:80 changed'],
    });
  });

  it('needs only a POST when a backend loses all its endpoints', () => {
    const diff = diffConfigurations(build(), build({ endpointSlices: [] }));
    expect(diff.reloadRequired).toBe(false);
    expect(diff.backendsChanged).toBe(true);
  });

  it('needs a reload when a server is added', () => {
    const next = build({
      ingresses: [
        ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] }),
        ingress('b', { 'b.example.com': [path('/', 'Prefix', 'other')] }),
      ],
    });
    const diff = diffConfigurations(build(), next);
    expect(diff.reloadRequired).toBe(true);
    expect(diff.backendsChanged).toBe(true);
    expect(diff.reasons).toEqual(['server b.example.com added', 'backend default/other:80 added']);
  });

  it('needs a reload when an annotation changes a location', () => {
    const next = build({
      ingresses: [
        ingress(
          'a',
          { 'a.example.com': [path('/', 'Prefix', 'app')] },
          { annotations: { [`${A}proxy-read-timeout`]: '5' } },
        ),
      ],
    });
    const diff = diffConfigurations(build(), next);
    expect(diff).toMatchObject({
      reloadRequired: true,
      backendsChanged: false,
      reasons: ['server a.example.com changed'],
    });
  });

  it('reports changed certificates', () => {
    const tls = { tls: [{ hosts: ['a.example.com'], secretName: 'cert' }] };
    const one = build({
      ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] }, tls)],
      secrets: [tlsSecret('cert', 'secure')],
    });
    const two = build({
      ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] }, tls)],
      secrets: [tlsSecret('cert', 'other')],
    });
    const diff = diffConfigurations(one, two);
    expect(diff.reloadRequired).toBe(true);
    expect(diff.certificatesChanged).toBe(true);
    expect(diff.reasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/^certificate [0-9a-f]{32}\.pem added$/)]),
    );
  });

  it('caps the reasons list', () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      ingress(`i${i}`, { [`h${i}.example.com`]: [path('/', 'Prefix', 'app')] }),
    );
    const diff = diffConfigurations(build(), build({ ingresses: many }));
    expect(diff.reasons).toHaveLength(21);
    expect(diff.reasons.at(-1)).toMatch(/^and \d+ more$/);
  });
});
