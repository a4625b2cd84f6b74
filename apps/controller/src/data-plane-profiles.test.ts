import { describe, expect, it } from 'vitest';
import { createProfile, type RenderOptions } from '@ingresskit/nginx-template';
import { createDesiredConfiguration, findHostsNeedingReload, needsReload } from './data-plane-profiles.js';
import { listenersOf, nginxRenderOptions } from './data-plane-render-options.js';

const options: RenderOptions = nginxRenderOptions('/p', {});
const listeners = listenersOf({ httpPort: 8080, httpsPort: 8443 });
const grpc = createProfile('GRPC');

describe('needsReload', () => {
  const running = createDesiredConfiguration(listeners, new Map(), options);

  it('asks for a reload when nothing runs yet', () => {
    expect(needsReload(undefined, running)).toBe(true);
  });

  it('takes no reload when listeners, settings and profiles are the same', () => {
    expect(needsReload(running, createDesiredConfiguration(listeners, new Map(), options))).toBe(false);
  });

  it('asks for a reload when the listeners or the settings change', () => {
    const otherPort = listenersOf({ httpPort: 8081, httpsPort: 8443 });
    expect(needsReload(running, createDesiredConfiguration(otherPort, new Map(), options))).toBe(true);
    const more = { ...options, workerConnections: 4096 };
    expect(needsReload(running, createDesiredConfiguration(listeners, new Map(), more))).toBe(true);
  });

  it('asks for a reload when a profile is new, not when one goes away', () => {
    const withGrpc = createDesiredConfiguration(listeners, new Map([['a.example', [grpc]]]), options);
    expect(needsReload(running, withGrpc)).toBe(true);
    expect(needsReload(withGrpc, running)).toBe(false);
  });
});

describe('findHostsNeedingReload', () => {
  it('lists the hosts whose profiles the running nginx.conf lacks', () => {
    const running = createDesiredConfiguration(listeners, new Map(), options);
    const profilesByHost = new Map([['a.example', [grpc]]]);
    expect(findHostsNeedingReload(running, profilesByHost)).toEqual(new Set(['a.example']));
    const reloaded = createDesiredConfiguration(listeners, profilesByHost, options);
    expect(findHostsNeedingReload(reloaded, profilesByHost)).toEqual(new Set());
  });
});
