/**
 * The controller ConfigMap's Ingress checks end to end (local API server, the controller, nginx,
 * real HTTP): annotation-value-word-blocklist and annotations-risk-level leave out only the
 * Ingress that fails them, with an Event naming the annotation, while the others serve;
 * strict-validate-path-type (on by default) leaves out a Prefix path ingress-nginx refuses, which
 * "false" serves. Every change applies without a reload.
 */
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, expectNoReload, listIngressNotes, useAnnotationsCase } from './annotations.js';
import {
  controllerConfigMapManifest,
  CONTROLLER_CONFIGMAP,
  eventually,
  serviceManifests,
} from './harness.js';

const configMap = controllerConfigMapManifest;
const CHECKS = {
  'annotation-value-word-blocklist': 'pwned, load_module',
  'annotations-risk-level': 'Medium',
};

const testCase = useAnnotationsCase({
  config: {
    podName: 'configmap-security',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
  },
  backends: ['alpha'],
  readyHost: 'open.test',
  objects: ({ backends }) => [
    configMap(CHECKS),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
    annotatedIngress('open.test', 'alpha', { [`${A}upstream-vhost`]: 'inner.test' }),
    annotatedIngress('blocked.test', 'alpha', { [`${A}upstream-vhost`]: 'pwned.test' }),
    annotatedIngress('alias.test', 'alpha', { [`${A}server-alias`]: 'other-name.test' }),
    annotatedIngress('tilde.test', 'alpha', {}, { path: '/~user' }),
  ],
});

describe('the controller ConfigMap Ingress checks', () => {
  it('leave out only the Ingress with a blocked word or a risky annotation, with an Event naming it', async () => {
    const started = testCase();
    expect(await started.answer('open.test')).toBe('alpha');
    expect(await started.answer('blocked.test')).toBe('404');
    expect(await started.answer('alias.test')).toBe('404');
    expect(await started.answer('other-name.test')).toBe('404');
    await eventually(async () => {
      expect(await listIngressNotes(started, 'blocked.test')).toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            `annotation "${A}upstream-vhost" holds "pwned", a word of the controller ConfigMap's annotation-value-word-blocklist`,
          ),
        ]),
      );
      expect(await listIngressNotes(started, 'alias.test')).toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            `annotation "${A}server-alias" is of risk High, above the controller ConfigMap's annotations-risk-level Medium`,
          ),
        ]),
      );
    });
  });

  it('serve them once the ConfigMap allows them, without a reload', async () => {
    const started = testCase();
    const { controller, server } = started;
    const answer = (host: string) => started.answer(host);
    await expectNoReload(controller, async () => {
      await server.apply([
        configMap({ 'annotation-value-word-blocklist': 'load_module', 'annotations-risk-level': 'high' }),
      ]);
      await eventually(async () => expect(await answer('blocked.test')).toBe('alpha'));
      await eventually(async () => expect(await answer('alias.test')).toBe('alpha'));
      expect(await answer('other-name.test')).toBe('alpha');
    });
    await server.apply([configMap(CHECKS)]);
    await eventually(async () => expect(await answer('blocked.test')).toBe('404'));
    expect(await answer('open.test')).toBe('alpha');
  });

  it('leave out a Prefix path outside the strict characters, which strict-validate-path-type "false" serves', async () => {
    const started = testCase();
    const { controller, server } = started;
    const answer = (host: string, options?: { path: string }) => started.answer(host, options);
    expect(await answer('tilde.test', { path: '/~user' })).toBe('404');
    await eventually(async () =>
      expect(await listIngressNotes(started, 'tilde.test')).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^spec\.rules\[0\]\.http\.paths\[0\]\.path: path cannot be used with pathType Prefix: .*strict-validate-path-type/,
          ),
        ]),
      ),
    );
    await expectNoReload(controller, async () => {
      await server.apply([configMap({ ...CHECKS, 'strict-validate-path-type': 'false' })]);
      await eventually(async () => expect(await answer('tilde.test', { path: '/~user/x' })).toBe('alpha'));
    });
    // The other checks stay as they were.
    expect(await answer('blocked.test')).toBe('404');
    await server.apply([configMap(CHECKS)]);
    await eventually(async () => expect(await answer('tilde.test', { path: '/~user' })).toBe('404'));
  });
});
