/**
 * `ingresskit migrate --to=gateway-api` checked by serving: a set of Ingresses is served through
 * nginx and the answers recorded; the command reads the same cluster and writes Gateway API
 * objects; the Ingresses' class is deleted and those objects applied; the same requests must get
 * the same answers (status, body as the backend saw the request, Location, HSTS). An Ingress with
 * a protection HTTPRoute cannot carry is not converted.
 */
import { NetworkingV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { GatewayApiConversion } from '../src/gateway-api-conversion.js';
import { controller, INFRA, send, server, useGatewayApiCase } from './gateway-api.js';
import { runCliCaptured } from './cli-capture.js';
import { createTempDir, eventually, ingressClassManifest, tlsSecretManifest } from './harness.js';

useGatewayApiCase();

const prefix = 'nginx.ingress.kubernetes.io';

interface PathSpec {
  path: string;
  pathType?: string;
  service: string;
}

function ingress(
  name: string,
  host: string,
  paths: PathSpec[],
  extra: { annotations?: Record<string, string>; tlsSecret?: string } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: INFRA, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      ingressClassName: 'nginx',
      ...(extra.tlsSecret ? { tls: [{ hosts: [host], secretName: extra.tlsSecret }] } : {}),
      rules: [
        {
          host,
          http: {
            paths: paths.map(({ path, pathType, service }) => ({
              path,
              pathType: pathType ?? 'Prefix',
              backend: { service: { name: service, port: { name: 'http' } } },
            })),
          },
        },
      ],
    },
  };
}

const ingresses = [
  ingress('plain', 'a.migrate.test', [
    { path: '/', service: 'infra-backend-v1' },
    { path: '/exact', pathType: 'Exact', service: 'infra-backend-v2' },
  ]),
  // ingress-nginx's documented rewrite: /api/x reaches the backend as /x.
  ingress(
    'rewrite',
    'r.migrate.test',
    [{ path: '/api(/|$)(.*)', pathType: 'ImplementationSpecific', service: 'infra-backend-v1' }],
    {
      annotations: { [`${prefix}/use-regex`]: 'true', [`${prefix}/rewrite-target`]: '/$2' },
    },
  ),
  ingress('main', 'c.migrate.test', [{ path: '/', service: 'infra-backend-v1' }]),
  ingress('canary', 'c.migrate.test', [{ path: '/', service: 'infra-backend-v2' }], {
    annotations: {
      [`${prefix}/canary`]: 'true',
      [`${prefix}/canary-by-header`]: 'X-Canary',
      [`${prefix}/canary-by-header-value`]: 'yes',
    },
  }),
  ingress('secure', 'b.migrate.test', [{ path: '/', service: 'infra-backend-v3' }], { tlsSecret: 'b-tls' }),
  ingress('moved', 'm.migrate.test', [{ path: '/', service: 'infra-backend-v1' }], {
    annotations: { [`${prefix}/permanent-redirect`]: 'https://example.com/new' },
  }),
  ingress('vhost', 'h.migrate.test', [{ path: '/', service: 'infra-backend-v2' }], {
    annotations: { [`${prefix}/upstream-vhost`]: 'upstream.migrate.test' },
  }),
  ingress('guarded', 'g.migrate.test', [{ path: '/', service: 'infra-backend-v1' }], {
    annotations: { [`${prefix}/allowlist-source-range`]: '10.0.0.0/8' },
  }),
];

/** [host, path, headers, over TLS]: what is asked of both. */
const requests: [string, string, Record<string, string>, boolean][] = [
  ['a.migrate.test', '/', {}, false],
  ['a.migrate.test', '/exact', {}, false],
  ['a.migrate.test', '/exact/more', {}, false],
  ['r.migrate.test', '/api/hello', {}, false],
  ['r.migrate.test', '/api', {}, false],
  ['r.migrate.test', '/apix', {}, false],
  ['c.migrate.test', '/', {}, false],
  ['c.migrate.test', '/', { 'X-Canary': 'yes' }, false],
  ['b.migrate.test', '/page?q=1', {}, false],
  ['b.migrate.test', '/page', {}, true],
  ['m.migrate.test', '/anything', {}, false],
  ['h.migrate.test', '/', {}, false],
  ['nowhere.migrate.test', '/', {}, false],
];

/** What a client sees, without what differs by construction (the test's ports in Location). */
async function observe(): Promise<string[]> {
  return Promise.all(
    requests.map(async ([host, path, headers, tls]) => {
      const response = await send(host, path, headers, tls);
      const location = String(response.headers.location ?? '').replace(/:\d+\//, '/');
      const hsts = String(response.headers['strict-transport-security'] ?? '');
      return `${tls ? 'https' : 'http'}://${host}${path} → ${response.status} ${response.body.replace(/\s+/g, ' ').trim()} ${location} ${hsts}`.trim();
    }),
  );
}

describe('ingresskit migrate --to=gateway-api', () => {
  it('writes Gateway API objects that serve what the Ingresses served, and leaves out the one it cannot protect', async () => {
    await server.apply([
      ingressClassManifest('nginx'),
      tlsSecretManifest('b-tls', 'b.migrate.test', INFRA),
      ...ingresses,
    ]);
    // Settled: the last Ingresses answer, the guarded one refuses 127.0.0.1.
    await eventually(async () => {
      expect((await send('g.migrate.test', '/')).status).toBe(403);
      expect((await send('h.migrate.test', '/')).status).toBe(200);
    });
    const served = await observe();
    expect(served).toContain(
      'http://r.migrate.test/api/hello → 200 infra-backend-v1: GET r.migrate.test/hello',
    );
    expect(served).toContain('http://c.migrate.test/ → 200 infra-backend-v2: GET c.migrate.test/');

    const temp = await createTempDir();
    let stdout = '';
    try {
      const kubeconfig = await server.writeKubeconfig(`${temp.dir}/kubeconfig`);
      const run = await runCliCaptured(
        [
          'migrate',
          `--kubeconfig=${kubeconfig}`,
          '--to=gateway-api',
          '--output=json',
          '--controller-class=ingresskit.dev/ingress-controller',
          '--allow-local-backend-addresses',
        ],
        { cwd: temp.dir },
      );
      expect(run.exitCode).toBe(1);
      stdout = run.stdout;
    } finally {
      await temp.remove();
    }
    const conversion = JSON.parse(stdout) as GatewayApiConversion;
    const outcome = Object.fromEntries(conversion.ingresses.map((entry) => [entry.ingress, entry.converted]));
    expect(outcome).toEqual({
      [`${INFRA}/canary`]: true,
      [`${INFRA}/guarded`]: false,
      [`${INFRA}/main`]: true,
      [`${INFRA}/moved`]: true,
      [`${INFRA}/plain`]: true,
      [`${INFRA}/rewrite`]: true,
      [`${INFRA}/secure`]: true,
      [`${INFRA}/vhost`]: true,
    });
    expect(
      conversion.ingresses.find((entry) => entry.ingress === `${INFRA}/guarded`)!.findings,
    ).toContainEqual(
      expect.objectContaining({ kind: 'error', message: expect.stringContaining('allowSources') }),
    );

    // The Ingresses are no longer served; the Gateway API objects take over.
    await server.kubeConfig().makeApiClient(NetworkingV1Api).deleteIngressClass({ name: 'nginx' });
    await eventually(async () => expect((await send('a.migrate.test', '/')).status).toBe(404));
    await server.apply(conversion.objects);
    await eventually(async () => expect(await observe()).toEqual(served), 20_000);
    // Not converted, so not served: never served open.
    expect((await send('g.migrate.test', '/')).status).toBe(404);
    expect(controller.isLeader()).toBe(true);
  }, 60_000);
});
