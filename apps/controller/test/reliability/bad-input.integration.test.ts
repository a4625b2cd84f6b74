/**
 * Reliability: bad input from users while a steady request loop runs. A broken Ingress (on its own
 * host, and one that adds a path to a steady host) and Ingresses whose TLS Secret holds garbage or
 * a key that does not match its certificate are reported and left out; every other route keeps
 * answering, and Ingresses created afterwards are served, so one bad object never blocks the rest.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../src/controller.js';
import { answerOf, eventually, ingressManifest, startController } from '../harness.js';
import {
  createTlsPair,
  DOMAIN,
  expectConverged,
  explainOverHttp,
  startCluster,
  startSteadyTraffic,
  tlsIngressManifest,
  tlsSecretManifest,
  type ReliabilityCluster,
} from './cluster.js';
import { formatTrafficReport } from './traffic.js';

let cluster: ReliabilityCluster;
let controller: Controller;

beforeAll(async () => {
  cluster = await startCluster();
  controller = await startController(cluster.server, { podName: 'bad-input' });
});

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

const badAnnotation = { 'nginx.ingress.kubernetes.io/proxy-body-size': '1 terabyte; evil' };

describe('a broken Ingress', () => {
  it('is reported and left out while every other route, on its host too, keeps answering', async () => {
    const { server } = cluster;
    const traffic = startSteadyTraffic(cluster, controller);
    await server.apply([
      ingressManifest('broken-alone', {
        host: `broken.${DOMAIN}`,
        service: 'alpha',
        className: 'nginx',
        annotations: badAnnotation,
      }),
      // Shares the host of a steady route: the steady route must not suffer for it.
      ingressManifest('broken-shared', {
        host: `a.${DOMAIN}`,
        service: 'beta',
        className: 'nginx',
        path: '/broken',
        annotations: badAnnotation,
      }),
    ]);
    for (const name of ['broken-alone', 'broken-shared']) {
      await eventually(async () => {
        const explanation = await explainOverHttp(controller, `default/${name}`);
        expect(explanation.owned).toBe(true);
        expect(explanation.routes).toEqual([]);
        expect(explanation.problems.map((problem) => problem.field).join(' ')).toContain('proxy-body-size');
      });
    }
    await server.apply(
      ingressManifest('after-broken', {
        host: `after-broken.${DOMAIN}`,
        service: 'gamma',
        className: 'nginx',
      }),
    );
    await eventually(async () => expect(await answerOf(controller, `after-broken.${DOMAIN}`)).toBe('gamma'));
    expect(await answerOf(controller, `broken.${DOMAIN}`)).toBe('404');
    // Not routed to beta: the broken path is not served, steady-a's `/` answers it.
    expect(await answerOf(controller, `a.${DOMAIN}`, '/broken')).toBe('alpha');
    await expectConverged(controller, server);
    // Keep the loop going past the last reload, while the old workers drain.
    await sleep(2_000);
    const report = await traffic.stopAfter(101);
    console.log(formatTrafficReport('broken Ingress', report));
    expect(report.total).toBeGreaterThan(100);
    expect(report.failures).toEqual([]);
  });
});

describe('an invalid certificate', () => {
  it('is reported for its Ingress alone; HTTPS and HTTP routes of others keep answering', async () => {
    const { server, tls } = cluster;
    const dir = await mkdtemp(join(tmpdir(), 'ingresskit-reliability-'));
    const other = createTlsPair(dir);
    await rm(dir, { recursive: true, force: true });
    const traffic = startSteadyTraffic(cluster, controller);
    await server.apply([
      tlsSecretManifest('garbage-tls', {
        crt: Buffer.from(
          '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n',
        ).toString('base64'),
        key: Buffer.from('not a key').toString('base64'),
      }),
      // A real certificate with the key of another one: only a check of the pair catches it.
      tlsSecretManifest('mismatched-tls', { crt: tls.crt, key: other.key }),
      tlsIngressManifest('garbage-cert', `garbage.${DOMAIN}`, 'alpha', 'garbage-tls'),
      tlsIngressManifest('mismatched-cert', `mismatched.${DOMAIN}`, 'beta', 'mismatched-tls'),
    ]);
    for (const name of ['garbage-cert', 'mismatched-cert']) {
      await eventually(async () => {
        const explanation = await explainOverHttp(controller, `default/${name}`);
        expect(explanation.problems.length).toBeGreaterThan(0);
        expect(explanation.problems.map((problem) => problem.field).join(' ')).toContain('tls');
      });
    }
    // The next Ingress is served: the bad Secrets did not make nginx -t fail for everyone.
    await server.apply(tlsIngressManifest('after-bad-cert', `after-cert.${DOMAIN}`, 'gamma', 'steady-tls'));
    await eventually(async () =>
      expect(await answerOf(controller, `after-cert.${DOMAIN}`, '/', true)).toBe('gamma'),
    );
    await expectConverged(controller, server);
    // Keep the loop going past the last reload, while the old workers drain.
    await sleep(2_000);
    const report = await traffic.stopAfter(101);
    console.log(formatTrafficReport('invalid certificates', report));
    expect(report.total).toBeGreaterThan(100);
    expect(report.failures).toEqual([]);
  });
});
