/**
 * `--annotations-prefix` end to end: the controller reads ingress-nginx's annotations under the
 * prefix it is given, and those under the default prefix are then someone else's.
 */
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { serviceManifests } from './harness.js';

const PREFIX = 'ingress.example.com';

const started = useAnnotationsCase({
  config: { podName: 'prefix', annotationPrefix: PREFIX },
  backends: ['app'],
  readyHost: 'plain.test',
  objects: ({ backends }) => [
    ...serviceManifests('app', [backends.get('app')!]),
    annotatedIngress('plain.test', 'app', {}),
    annotatedIngress('custom.test', 'app', { [`${PREFIX}/permanent-redirect`]: 'https://example.org/moved' }),
    annotatedIngress('default.test', 'app', { [`${A}permanent-redirect`]: 'https://example.org/moved' }),
  ],
});

describe('--annotations-prefix', () => {
  it('reads the annotations under the given prefix only', async () => {
    const custom = await started().send('custom.test');
    expect([custom.status, custom.headers.location]).toEqual([301, 'https://example.org/moved']);
    expect(await started().answer('default.test')).toBe('app');
  });
});
