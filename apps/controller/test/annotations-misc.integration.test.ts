/**
 * ingress-nginx's connection-proxy-header, enable-access-log, satisfy and service-upstream end to
 * end (local API server, the controller, nginx with its access log, real HTTP from 127.0.0.1).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, serviceManifests } from './harness.js';

/** {SHA} of "secret". */
const HTPASSWD = 'ann:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\n';

function annotated(host: string, annotations: Record<string, string>) {
  return annotatedIngress(host, 'echo', annotations);
}

const credentials = { authorization: `Basic ${Buffer.from('ann:secret').toString('base64')}` };

const testCase = useAnnotationsCase({
  config: { podName: 'misc', accessLog: true },
  readyHost: 'default.test',
  objects: async ({ listen }) => {
    const port = await listen((request, response) =>
      response.end(`connection=${request.headers.connection ?? ''}`),
    );
    const auth = { [`${A}auth-type`]: 'basic', [`${A}auth-secret`]: 'users' };
    return [
      ...serviceManifests('echo', []),
      endpointSliceManifest('echo-1', 'echo', port),
      // A Service without endpoints whose cluster IP and port reach the backend.
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'clustered', namespace: 'default' },
        spec: { clusterIP: '127.0.0.1', ports: [{ name: 'http', port }] },
      },
      annotatedIngress('cluster.test', 'clustered', { [`${A}service-upstream`]: 'true' }, { port }),
      annotatedIngress('endpoints.test', 'clustered', {}, { port }),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'users', namespace: 'default' },
        data: { auth: Buffer.from(HTPASSWD).toString('base64') },
      },
      annotated('close.test', { [`${A}connection-proxy-header`]: 'close' }),
      annotated('default.test', {}),
      annotated('quiet.test', { [`${A}enable-access-log`]: 'false' }),
      annotated('any-outside.test', {
        ...auth,
        [`${A}satisfy`]: 'any',
        [`${A}allowlist-source-range`]: '10.0.0.0/8',
      }),
      annotated('any-inside.test', {
        ...auth,
        [`${A}satisfy`]: 'any',
        [`${A}allowlist-source-range`]: '127.0.0.1',
      }),
      annotated('all-inside.test', {
        ...auth,
        [`${A}satisfy`]: 'all',
        [`${A}allowlist-source-range`]: '127.0.0.1',
      }),
      annotated('all-outside.test', { ...auth, [`${A}allowlist-source-range`]: '10.0.0.0/8' }),
    ];
  },
});

function send(host: string, headers: Record<string, string> = {}) {
  return testCase().send(host, { headers });
}

describe('connection-proxy-header', () => {
  it('sends its Connection header upstream instead of keep-alive', async () => {
    expect((await send('close.test')).body).toBe('connection=close');
    expect((await send('default.test')).body).not.toBe('connection=close');
  });
});

describe('enable-access-log', () => {
  it('"false" leaves the Ingress\'s requests out of the access log', async () => {
    await send('quiet.test');
    await send('default.test');
    const log = join(testCase().controller.dataPlane.prefix, 'access.log');
    await eventually(async () => expect(await readFile(log, 'utf8')).toContain('"GET / HTTP/1.1" 200'));
    const lines = (await readFile(log, 'utf8')).split('\n');
    expect(lines.some((line) => line.includes('Ingress/default/default.test'))).toBe(true);
    expect(lines.some((line) => line.includes('Ingress/default/quiet.test'))).toBe(false);
  });
});

describe('satisfy', () => {
  it('any: a client the allowlist admits needs no credentials; others do', async () => {
    expect((await send('any-inside.test')).status).toBe(200);
    expect((await send('any-outside.test')).status).toBe(401);
    expect((await send('any-outside.test', credentials)).status).toBe(200);
  });

  it('all (the default): both the allowlist and the credentials must pass', async () => {
    expect((await send('all-inside.test')).status).toBe(401);
    expect((await send('all-inside.test', credentials)).status).toBe(200);
    expect((await send('all-outside.test', credentials)).status).toBe(403);
  });
});

describe('service-upstream', () => {
  it("sends requests to the Service's cluster IP and port instead of its endpoints", async () => {
    expect((await send('cluster.test')).status).toBe(200);
    expect((await send('endpoints.test')).status).toBe(503);
  });
});
