/**
 * NginxRuntime with real nginx: a configuration `nginx -t` refuses leaves the last good one
 * serving, and the next good one is applied. `nginx -t` is made to fail through a wrapper script
 * (buildConfiguration never produces a configuration nginx refuses, so a real refusal needs help).
 */
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildConfiguration, type Configuration } from '@ingresskit/nginx-template';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoBackend } from '../src/demo-backends.js';
import { NginxConfigTestError } from '../src/errors.js';
import { probe } from '../src/http-probe.js';
import { createLogger } from '../src/logger.js';
import { resolveNginxBinary } from '../src/nginx-process.js';
import { NginxRuntime } from '../src/nginx-runtime.js';
import {
  answerOf,
  createTempDir,
  eventually,
  ingressClassManifest,
  ingressManifest,
  listEvents,
  pickControllerPorts,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
} from './harness.js';

let temp: { dir: string; remove: () => Promise<void> };
let backends: Map<string, DemoBackend>;
let runtime: NginxRuntime;
let ports: Awaited<ReturnType<typeof pickControllerPorts>>;
let failMarker: string;
let wrapper: string;

function configurationFor(hosts: string[]): Configuration {
  const alpha = backends.get('alpha')!;
  const [service, slice] = serviceManifests('alpha', [alpha]);
  return buildConfiguration({
    ingresses: hosts.map((host) => ingressManifest(host.replace(/\..*/, ''), { host, service: 'alpha' })),
    services: [service] as unknown as V1Service[],
    endpointSlices: [slice] as unknown as V1EndpointSlice[],
  }).configuration;
}

async function status(host: string): Promise<number> {
  return (await probe({ port: ports.httpPort, host })).status;
}

beforeAll(async () => {
  temp = await createTempDir();
  backends = await startBackends('alpha');
  ports = await pickControllerPorts();
  failMarker = join(temp.dir, 'fail-next-test');
  wrapper = join(temp.dir, 'nginx-wrapper.sh');
  await writeFile(
    wrapper,
    `#!/bin/sh\nif [ "$1" = "-t" ] && [ -e '${failMarker}' ]; then echo "nginx: [emerg] refused on purpose by the test" >&2; exit 1; fi\nexec '${resolveNginxBinary()}' "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  runtime = new NginxRuntime({
    binary: wrapper,
    ...ports,
    listenAddresses: ['127.0.0.1'],
    workerProcesses: 1,
    logger: createLogger({ level: 'silent' }),
  });
  await runtime.prepare();
});

afterAll(async () => {
  await runtime?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
  await temp?.remove();
});

describe('NginxRuntime', () => {
  it('keeps the last good configuration serving when nginx -t refuses the next, and applies a later good one', async () => {
    const first = await runtime.apply(configurationFor(['one.test']));
    expect(first.started).toBe(true);
    expect(await status('one.test')).toBe(200);

    await writeFile(failMarker, '');
    await expect(runtime.apply(configurationFor(['one.test', 'two.test']))).rejects.toBeInstanceOf(
      NginxConfigTestError,
    );
    expect(await status('one.test')).toBe(200);
    expect(await status('two.test')).toBe(404);
    expect(runtime.loaded?.servers.map((server) => server.host)).toEqual(['one.test']);

    await rm(failMarker);
    const third = await runtime.apply(configurationFor(['one.test', 'two.test']));
    expect(third.reloaded).toBe(true);
    expect(await status('two.test')).toBe(200);
    expect(runtime.reloadCount).toBe(1);
  });

  it('does nothing when the configuration is the one running', async () => {
    const result = await runtime.apply(configurationFor(['one.test', 'two.test']));
    expect(result).toMatchObject({ started: false, reloaded: false, backendsPosted: false });
  });
});

describe('Controller', () => {
  it('keeps serving, reports and retries with backoff when nginx -t refuses a change, then applies it', async () => {
    const server = await startLocalApiServer({ port: 0 });
    try {
      await server.apply([
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
        ingressClassManifest('nginx'),
        ...serviceManifests('alpha', [backends.get('alpha')!]),
        ingressManifest('one', { host: 'one.test', service: 'alpha', className: 'nginx' }),
      ]);
      const controller = await startController(server, { nginxBinary: wrapper, podName: 'refused' });
      try {
        expect(await answerOf(controller, 'one.test')).toBe('alpha');
        await writeFile(failMarker, '');
        await server.apply(
          ingressManifest('two', { host: 'two.test', service: 'alpha', className: 'nginx' }),
        );
        await eventually(async () => {
          const text = await (await fetch(`http://127.0.0.1:${controller.healthzPort}/metrics`)).text();
          expect(text).toContain('ingresskit_config_last_reload_successful 0');
          expect(text).toMatch(/ingresskit_nginx_reloads_total\{result="failure"\} [2-9]/);
        });
        expect(await answerOf(controller, 'one.test')).toBe('alpha');
        expect(await answerOf(controller, 'two.test')).toBe('404');
        await eventually(async () => {
          await controller.events.flush();
          const events = await listEvents(server.kubeConfig(), 'ingresskit');
          const event = events.find((candidate) => candidate.reason === 'ConfigTestFailed');
          expect(event?.regarding).toMatchObject({ kind: 'Pod', name: 'refused' });
          expect(event?.note).toContain('refused on purpose');
        });

        // No new event from the cluster: the retry alone applies the change once nginx accepts it.
        await rm(failMarker);
        await eventually(async () => expect(await answerOf(controller, 'two.test')).toBe('alpha'), 20_000);
        expect(controller.isReady()).toBe(true);
      } finally {
        await controller.stop();
      }
    } finally {
      await server.stop();
    }
  }, 40_000);
});
