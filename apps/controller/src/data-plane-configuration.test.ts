import { describe, expect, it } from 'vitest';
import type { RenderOptions } from '@ingresskit/nginx-template';
import { createDesiredConfiguration, needsReload } from './data-plane-configuration.js';
import { listenersOf, nginxRenderOptions } from './data-plane-render-options.js';

const options: RenderOptions = nginxRenderOptions('/p', {});
const listeners = listenersOf({ httpPort: 8080, httpsPort: 8443 });

describe('needsReload', () => {
  const running = createDesiredConfiguration(listeners, options);

  it('asks for a reload when nothing runs yet', () => {
    expect(needsReload(undefined, running)).toBe(true);
  });

  it('takes no reload when listeners and settings are the same', () => {
    expect(needsReload(running, createDesiredConfiguration(listeners, options))).toBe(false);
  });

  it('asks for a reload when the listeners or the settings change', () => {
    const otherPort = listenersOf({ httpPort: 8081, httpsPort: 8443 });
    expect(needsReload(running, createDesiredConfiguration(otherPort, options))).toBe(true);
    const more = { ...options, workerConnections: 4096 };
    expect(needsReload(running, createDesiredConfiguration(listeners, more))).toBe(true);
  });
});
