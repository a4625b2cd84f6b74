import { describe, expect, it } from 'vitest';
import type { RouteAction } from '@ingresskit/route-model';
import { buildConfiguration, diffConfigurations, type RenderOptions } from './index.js';
import { createTestHost, createTestRoute, createTestTable } from './testing/routes.js';

const options: RenderOptions = { controlSocketPath: '/run/ingresskit/control.sock' };
const forward: RouteAction = { type: 'forward', backends: [{ backend: 'app', weight: 1 }] };

describe('diffConfigurations', () => {
  const running = buildConfiguration(createTestTable(), options).configuration;

  it('asks for a reload when nothing runs yet', () => {
    expect(diffConfigurations(undefined, running)).toEqual({
      reloadRequired: true,
      reasons: ['no running configuration'],
    });
  });

  it('needs no reload for equal configurations, whatever the hosts', () => {
    const next = buildConfiguration(
      createTestTable({
        virtualHosts: [createTestHost('a.example.com', [createTestRoute('r', { action: forward })])],
      }),
      options,
    );
    expect(diffConfigurations(running, next.configuration)).toEqual({ reloadRequired: false, reasons: [] });
  });

  it('names the listeners and settings that changed, never a route', () => {
    const table = createTestTable({
      listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }],
      virtualHosts: [
        createTestHost('a.example.com', [
          createTestRoute('r', { action: forward, policy: { backendProtocol: 'GRPC' } }),
        ]),
      ],
    });
    const next = buildConfiguration(table, { ...options, resolvers: ['10.0.0.10'] }).configuration;
    expect(diffConfigurations(running, next)).toEqual({
      reloadRequired: true,
      reasons: [
        'listener on port 443 removed',
        'listener on port 80 removed',
        'listener on port 8080 added',
        'setting resolvers changed',
      ],
    });
  });
});
