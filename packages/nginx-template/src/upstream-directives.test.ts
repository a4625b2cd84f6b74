import { describe, expect, it } from 'vitest';
import type { RouteAction, RouteTable, UpstreamSettings } from '@ingresskit/route-model';
import { buildConfiguration, compileRoute, profileOf, renderNginxConf } from './index.js';
import { createTestRoute } from './testing/routes.js';

const forward: RouteAction = { type: 'forward', backends: [{ backend: 'b', weight: 1 }] };

function routeWith(upstreamSettings: UpstreamSettings) {
  return createTestRoute('r', { action: forward, policy: { upstreamSettings } });
}

describe('profileOf with upstreamSettings', () => {
  it('names the profile after each directive, from numbers and enumerations only', () => {
    expect(
      profileOf(
        routeWith({
          requestBuffering: false,
          responseBuffering: false,
          httpVersion: '1.0',
          bufferSizeBytes: 8192,
          buffersNumber: 3,
          requestBodyBufferBytes: 16384,
          maxTempFileBytes: 0,
          retryOn: ['http_503', 'error'],
          retryTimeoutSeconds: 5,
        }),
      )?.name,
    ).toBe('ik_http_d_rq0_rs0_v10_bs8192_bn3_cb16384_tf0_nu33_nt5');
  });

  it('leaves out a setting out of range, with a warning', () => {
    const route = routeWith({ buffersNumber: 2, bufferSizeBytes: 4096 });
    expect(profileOf(route)?.name).toBe('ik_http_d_bs4096');
    expect(compileRoute(route).issues).toEqual([
      expect.objectContaining({ severity: 'warning', field: 'policy.upstreamSettings.buffersNumber' }),
    ]);
  });

  it('keeps busy buffers only within what the buffers allow, the defaults where unset', () => {
    expect(profileOf(routeWith({ busyBuffersBytes: 8192 }))?.name).toBe('ik_http_d_bb8192');
    expect(profileOf(routeWith({ busyBuffersBytes: 12288 }))?.name).toBe('ik_http_d');
    const route = routeWith({ busyBuffersBytes: 8192, buffersNumber: 3 });
    expect(profileOf(route)?.name).toBe('ik_http_d_bn3');
    expect(compileRoute(route).issues).toEqual([
      expect.objectContaining({ severity: 'warning', field: 'policy.upstreamSettings.busyBuffersBytes' }),
    ]);
    expect(profileOf(routeWith({ busyBuffersBytes: 16384, bufferSizeBytes: 8192 }))?.name).toBe(
      'ik_http_d_bs8192_bb16384',
    );
  });
});

describe('renderNginxConf with upstream directives', () => {
  it("writes the profile's directives into its locations", () => {
    const table: RouteTable = {
      listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }],
      virtualHosts: [
        {
          hostname: 'a.test',
          hostnameMatch: 'exact',
          routes: [
            routeWith({
              responseBuffering: false,
              bufferSizeBytes: 8192,
              buffersNumber: 3,
              maxTempFileBytes: 0,
              retryOn: [],
            }),
          ],
        },
      ],
      tls: [],
      certificates: [],
      backends: [],
    };
    const conf = renderNginxConf(
      buildConfiguration(table, { controlSocketPath: '/run/ingresskit/control.sock' }).configuration,
    );
    const location = conf.slice(conf.indexOf('location @ik_http_d_rs0_bs8192_bn3_tf0_nu0 {'));
    const body = location.slice(0, location.indexOf('}'));
    expect(body).toContain('proxy_buffering off;');
    expect(body).toContain('proxy_buffer_size 8192;');
    expect(body).toContain('proxy_buffers 3 8192;');
    expect(body).toContain('proxy_busy_buffers_size 8192;');
    expect(body).toContain('proxy_max_temp_file_size 0;');
    expect(body).toContain('proxy_next_upstream off;');
  });

  it('renders busy buffers with the buffers they were checked against', () => {
    const table: RouteTable = {
      listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }],
      virtualHosts: [
        { hostname: 'a.test', hostnameMatch: 'exact', routes: [routeWith({ busyBuffersBytes: 8192 })] },
      ],
      tls: [],
      certificates: [],
      backends: [],
    };
    const conf = renderNginxConf(
      buildConfiguration(table, { controlSocketPath: '/run/ingresskit/control.sock' }).configuration,
    );
    const location = conf.slice(conf.indexOf('location @ik_http_d_bb8192 {'));
    const body = location.slice(0, location.indexOf('}'));
    expect(body).toContain('proxy_buffer_size 4096;');
    expect(body).toContain('proxy_buffers 4 4096;');
    expect(body).toContain('proxy_busy_buffers_size 8192;');
  });
});
