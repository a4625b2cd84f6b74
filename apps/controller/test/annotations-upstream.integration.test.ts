/**
 * ingress-nginx proxy annotations that pick a profile location, end to end (local API server, the
 * controller, nginx, real HTTP): proxy-buffering off keeps the backend at the client's pace,
 * proxy-http-version 1.0 reaches the backend, proxy-next-upstream retries on a 503 of the gateway
 * errors' set, proxy-buffer-size bounds the response headers (rounded up to the catalogue's
 * sizes), and the other settings are served by nginx.conf's values.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { probe } from '../src/http-probe.js';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { collectStatuses, isTakenWhileClientWaits, writeLargeResponse } from './proxy-probes.js';
import { endpointSliceManifest, serviceManifests } from './harness.js';

/** A backend: /large sends 32 MiB, as fast as it is read; /big a 12k header; else its status and HTTP version. */
function answerWith(status = 200): RequestListener {
  return (incoming, response) => {
    response.statusCode = status;
    if (incoming.url === '/large') writeLargeResponse(incoming, response);
    else if (incoming.url === '/big') {
      response.setHeader('x-big', 'x'.repeat(12_000));
      response.end('big');
    } else response.end(`${status}:${incoming.httpVersion}`);
  };
}

const testCase = useAnnotationsCase({
  config: { podName: 'upstream' },
  readyHost: 'all.test',
  objects: async ({ listen }) => {
    const ok = await listen(answerWith());
    const unavailable = await listen(answerWith(503));
    return [
      ...serviceManifests('ok', []),
      endpointSliceManifest('ok-1', 'ok', ok),
      ...serviceManifests('half', []),
      endpointSliceManifest('half-1', 'half', unavailable),
      endpointSliceManifest('half-2', 'half', ok),
      annotatedIngress('stream.test', 'ok', { [`${A}proxy-buffering`]: 'off' }),
      annotatedIngress('buffered.test', 'ok', { [`${A}proxy-buffering`]: 'on' }),
      annotatedIngress('v10.test', 'ok', { [`${A}proxy-http-version`]: '1.0' }),
      annotatedIngress('retry.test', 'half', {
        [`${A}proxy-next-upstream`]: 'error timeout http_502 http_503 http_504',
      }),
      // Served as "error timeout", the largest set of the catalogue within it.
      annotatedIngress('narrow-retry.test', 'half', {
        [`${A}proxy-next-upstream`]: 'error timeout http_503',
      }),
      annotatedIngress('no-retry.test', 'half', {}),
      annotatedIngress('large-buffer.test', 'ok', { [`${A}proxy-buffer-size`]: '24k' }),
      annotatedIngress('all.test', 'ok', {
        [`${A}proxy-request-buffering`]: 'off',
        [`${A}proxy-buffers-number`]: '3',
        [`${A}proxy-buffer-size`]: '8k',
        [`${A}client-body-buffer-size`]: '16k',
        [`${A}proxy-max-temp-file-size`]: '0',
        [`${A}proxy-next-upstream`]: 'off',
        [`${A}proxy-next-upstream-timeout`]: '5',
      }),
    ];
  },
});

function send(host: string, path = '/') {
  return testCase().send(host, { path });
}

describe('proxy-buffering', () => {
  it('off passes the response on as the client reads it; on takes it from the backend at once', async () => {
    expect(await isTakenWhileClientWaits(testCase().controller.config.httpPort, 'stream.test')).toBe(false);
    expect(await isTakenWhileClientWaits(testCase().controller.config.httpPort, 'buffered.test')).toBe(true);
  });
});

describe('proxy-http-version', () => {
  it('speaks HTTP/1.0 to the backend', async () => {
    expect((await send('v10.test')).body).toBe('200:1.0');
    expect((await send('all.test')).body).toBe('200:1.1');
  });
});

describe('proxy-next-upstream', () => {
  it('tries the next endpoint after a 503 when asked, never for a set the catalogue lacks, not by default', async () => {
    expect(await collectStatuses(() => send('retry.test'))).toEqual(Array(6).fill(200));
    expect(await collectStatuses(() => send('narrow-retry.test'))).toContain(503);
    expect(await collectStatuses(() => send('no-retry.test'))).toContain(503);
  });
});

describe('proxy-buffer-size', () => {
  it('takes response headers a larger buffer holds, which the default refuses (502)', async () => {
    expect((await send('large-buffer.test', '/big')).status).toBe(200);
    expect((await send('buffered.test', '/big')).status).toBe(502);
  });
});

describe('proxy-request-buffering, proxy-buffers-number, client-body-buffer-size, proxy-max-temp-file-size, proxy-next-upstream-timeout', () => {
  it('render directives nginx accepts and serves with', async () => {
    const response = await probe({
      port: testCase().controller.config.httpPort,
      host: 'all.test',
      path: '/',
      method: 'GET',
    });
    expect(response.status).toBe(200);
  });
});
