/**
 * The controller ConfigMap's access log keys end to end (local API server, the controller, nginx,
 * real HTTP): log-format-upstream and access-log-path shape the line nginx writes, with
 * ingress-nginx's own variables provided; skip-access-log-urls and the default backend are left
 * out; a format naming a variable that cannot be logged is refused with an Event while the last
 * valid one keeps being written.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { annotatedIngress, useAnnotationsCase } from './annotations.js';
import { probe } from '../src/http-probe.js';
import {
  controllerConfigMapManifest,
  CONTROLLER_CONFIGMAP,
  endpointSliceManifest,
  eventually,
  listConfigMapEvents,
  serviceManifests,
} from './harness.js';

const logDir = await mkdtemp(join(tmpdir(), 'ik-access-log-'));
const logPath = join(logDir, 'requests.log');
afterAll(() => rm(logDir, { recursive: true, force: true }));

const started = useAnnotationsCase({
  config: {
    podName: 'configmap-access-log',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
  },
  readyHost: 'logged.test',
  objects: async ({ listen }) => {
    const port = await listen((_incoming, response) => response.end('ok'));
    return [
      controllerConfigMapManifest({}),
      ...serviceManifests('app', []),
      endpointSliceManifest('app-1', 'app', port),
      annotatedIngress('logged.test', 'app', {}),
    ];
  },
});

const FORMAT =
  '$request_method $request_uri $status [$proxy_upstream_name] [$proxy_alternative_upstream_name] id=$req_id host=${host};';

const configMap = (extra: Record<string, string> = {}) =>
  controllerConfigMapManifest({
    'disable-access-log': 'false',
    'access-log-path': logPath,
    'log-format-upstream': FORMAT,
    'skip-access-log-urls': '/healthz,/probe?full=1',
    ...extra,
  });

async function get(path: string, host = 'logged.test') {
  const { controller } = started();
  return probe({ port: controller.config.httpPort, host, path, headers: { 'x-request-id': `req-${path}` } });
}

async function logLines(): Promise<string[]> {
  const text = await readFile(logPath, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

describe('controller ConfigMap access log', () => {
  it('writes the format of log-format-upstream to access-log-path, without the skipped URLs', async () => {
    const { controller, server } = started();
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([configMap()]);
    await eventually(() => expect(controller.dataPlane.reloadCount).toBeGreaterThan(reloads));
    await eventually(async () => {
      expect((await get('/first')).status).toBe(200);
      expect(await logLines()).toContain(
        'GET /first 200 [default/app:80] [] id=req-/first host=logged.test;',
      );
    });
    for (const path of ['/healthz', '/HEALTHZ', '/probe?full=1', '/probe?full=2', '/healthz/deep', '/last'])
      expect((await get(path)).status).toBe(200);
    await eventually(async () => expect((await logLines()).at(-1)).toMatch(/^GET \/last 200 /));
    const paths = (await logLines()).map((line) => line.split(' ')[1]);
    // nginx's map compares skip-access-log-urls with the whole request URI, without case.
    expect(paths).toContain('/probe?full=2');
    expect(paths).toContain('/healthz/deep');
    expect(paths).not.toContain('/healthz');
    expect(paths).not.toContain('/HEALTHZ');
    expect(paths).not.toContain('/probe?full=1');
  });

  it('leaves out requests the default backend answers unless enable-access-log-for-default-backend', async () => {
    const { server } = started();
    await server.apply([configMap()]);
    expect((await get('/unknown-host', 'nobody.test')).status).toBe(404);
    expect((await get('/after-unknown')).status).toBe(200);
    await eventually(async () => expect((await logLines()).at(-1)).toMatch(/^GET \/after-unknown /));
    expect((await logLines()).some((line) => line.includes('host=nobody.test'))).toBe(false);
    await server.apply([configMap({ 'enable-access-log-for-default-backend': 'true' })]);
    await eventually(async () => {
      expect((await get('/unknown-host', 'nobody.test')).status).toBe(404);
      expect((await logLines()).at(-1)).toBe(
        'GET /unknown-host 404 [] [] id=req-/unknown-host host=nobody.test;',
      );
    });
  });

  it('refuses a format naming a variable it cannot log with an Event, and keeps writing the last valid one', async () => {
    const { controller, server } = started();
    await server.apply([configMap()]);
    await eventually(async () => {
      expect((await get('/before')).status).toBe(200);
      expect((await logLines()).at(-1)).toMatch(/^GET \/before 200 \[default\/app:80\]/);
    });
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([configMap({ 'log-format-upstream': '$status $ingress_name' })]);
    await eventually(async () =>
      expect(await listConfigMapEvents(started(), CONTROLLER_CONFIGMAP)).toEqual(
        expect.arrayContaining([
          `InvalidConfiguration: data["log-format-upstream"]: "log-format-upstream" names "$ingress_name", an ingress-nginx variable ingresskit does not provide; the last valid value ${JSON.stringify(FORMAT)} stays`,
        ]),
      ),
    );
    expect((await get('/after')).status).toBe(200);
    await eventually(async () =>
      expect((await logLines()).at(-1)).toBe(
        'GET /after 200 [default/app:80] [] id=req-/after host=logged.test;',
      ),
    );
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });
});
