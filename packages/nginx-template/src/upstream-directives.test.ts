import { describe, expect, it } from 'vitest';
import type { RouteAction, UpstreamSettings } from '@ingresskit/route-model';
import { compileRoute, profileOf } from './index.js';
import { createTestRoute } from './testing/routes.js';
import { createUpstreamDefaults } from './upstream-directives.js';

const forward: RouteAction = { type: 'forward', backends: [{ backend: 'b', weight: 1 }] };

function routeWith(upstreamSettings: UpstreamSettings) {
  return createTestRoute('r', { action: forward, policy: { upstreamSettings } });
}

describe('compileRoute with upstreamSettings', () => {
  it('takes buffering, the HTTP version, the header buffer and the retry set into the profile', () => {
    const route = routeWith({
      requestBuffering: false,
      responseBuffering: false,
      httpVersion: '1.0',
      bufferSizeBytes: 8192,
      retryOn: ['error', 'timeout', 'http_502', 'http_503', 'http_504'],
    });
    expect(profileOf(route)?.name).toBe('ik_p_q0s0v10_b16384_r115');
    const { entry, issues } = compileRoute(route);
    expect(entry.profile).toBe('ik_p_q0s0v10_b16384_r115');
    expect(issues).toEqual([]);
  });

  it('makes the retry time limit route data', () => {
    const { entry, issues } = compileRoute(routeWith({ retryTimeoutSeconds: 5 }));
    expect(entry.policy?.retryTimeout).toBe(5);
    expect(entry.profile).toBe('ik_p_q1s1v11_b0_r3');
    expect(issues).toEqual([]);
    expect(compileRoute(routeWith({ retryTimeoutSeconds: 0 })).entry.policy?.retryTimeout).toBeUndefined();
  });

  it("reports the buffer settings nginx.conf decides, and keeps the route's profile", () => {
    const route = routeWith({
      buffersNumber: 8,
      busyBuffersBytes: 8192,
      requestBodyBufferBytes: 16384,
      maxTempFileBytes: 0,
    });
    expect(profileOf(route)?.name).toBe('ik_p_q1s1v11_b0_r3');
    expect(compileRoute(route).issues.map((issue) => [issue.severity, issue.field])).toEqual([
      ['warning', 'policy.upstreamSettings.buffersNumber'],
      ['warning', 'policy.upstreamSettings.busyBuffersBytes'],
      ['warning', 'policy.upstreamSettings.requestBodyBufferBytes'],
      ['warning', 'policy.upstreamSettings.maxTempFileBytes'],
    ]);
  });

  it('reports retry conditions served as a smaller set', () => {
    const { issues } = compileRoute(routeWith({ retryOn: ['error', 'timeout', 'http_404'] }));
    expect(issues).toEqual([
      expect.objectContaining({
        severity: 'warning',
        field: 'policy.upstreamSettings.retryOn',
        message: 'is served as "error timeout"',
      }),
    ]);
  });

  it('leaves out a setting out of range, with a warning', () => {
    const route = routeWith({ bufferSizeBytes: 100, retryTimeoutSeconds: -1 });
    expect(profileOf(route)?.name).toBe('ik_p_q1s1v11_b0_r3');
    expect(compileRoute(route).issues.map((issue) => issue.field)).toEqual([
      'policy.upstreamSettings.bufferSizeBytes',
      'policy.upstreamSettings.retryTimeoutSeconds',
    ]);
  });
});

describe("the operator's upstream defaults", () => {
  const defaults = createUpstreamDefaults({
    bufferSizeBytes: 8192,
    buffersNumber: 8,
    retryOn: ['error', 'timeout', 'http_503'],
  });

  it('serve routes that keep them exactly, and report what a route asks for otherwise', () => {
    const keeping = compileRoute(
      routeWith({ bufferSizeBytes: 8192, buffersNumber: 8, retryOn: ['error', 'timeout', 'http_503'] }),
      'app.test',
      defaults,
    );
    expect(keeping.entry.profile).toBe('ik_p_q1s1v11_b0_r35');
    expect(keeping.issues).toEqual([]);
    const other = compileRoute(
      routeWith({ buffersNumber: 16, retryOn: ['error', 'timeout', 'http_404'] }),
      'app.test',
      defaults,
    );
    expect(other.issues.map((issue) => issue.field)).toEqual([
      'policy.upstreamSettings.buffersNumber',
      'policy.upstreamSettings.retryOn',
    ]);
  });
});
