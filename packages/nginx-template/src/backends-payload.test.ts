import { describe, expect, it } from 'vitest';
import { backendsPayload, buildConfiguration, type BackendsPayload } from './index.js';
import { endpointSlice, externalService, ingress, path, service } from './testing/fixtures.js';

describe('backendsPayload', () => {
  it('lists every balanced backend with its endpoints and leaves ExternalName backends out', () => {
    const { configuration } = buildConfiguration({
      ingresses: [
        ingress('a', {
          'a.example.com': [
            path('/a', 'Exact', 'app'),
            path('/b', 'Exact', 'empty'),
            path('/c', 'Exact', 'ext', 443),
          ],
        }),
      ],
      services: [service('app'), service('empty'), externalService('ext', 'api.example.org')],
      endpointSlices: [endpointSlice('app', 8080, ['10.0.0.2', '10.0.0.1'])],
    });
    expect(JSON.parse(backendsPayload(configuration)) as BackendsPayload).toEqual({
      backends: [
        {
          name: 'default/app:80',
          endpoints: [
            { address: '10.0.0.1', port: 8080 },
            { address: '10.0.0.2', port: 8080 },
          ],
        },
        { name: 'default/empty:80', endpoints: [] },
      ],
    });
  });

  it('is byte-identical for equal configurations', () => {
    const make = () =>
      buildConfiguration({
        ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] })],
        services: [service('app')],
        endpointSlices: [endpointSlice('app', 8080, ['10.0.0.3', '10.0.0.1'])],
      }).configuration;
    expect(backendsPayload(make())).toBe(backendsPayload(make()));
  });
});
