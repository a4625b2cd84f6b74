import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import type { GatewayApiConversion } from '../gateway-api-conversion.js';
import type { MigrationReport } from '../migration.js';
import { runCliCaptured } from '../../test/cli-capture.js';

/** An Ingress of one Prefix path `/` on `host` to Service app:80 of its namespace. */
function ingress(
  namespace: string,
  name: string,
  host: string,
  extra: { className?: string; annotations?: Record<string, string> } = {},
): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      ...(extra.className === undefined ? {} : { ingressClassName: extra.className }),
      rules: [
        {
          host,
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: 'app', port: { number: 80 } } } },
            ],
          },
        },
      ],
    },
  };
}

const service = (namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'app', namespace },
  spec: { ports: [{ port: 80 }] },
});

const prefix = 'nginx.ingress.kubernetes.io';
let dir: string;

async function writeManifests(name: string, objects: object[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, objects.map((object) => JSON.stringify(object)).join('\n---\n'));
  return path;
}

function migrate(args: string[]) {
  return runCliCaptured(['migrate', ...args], { cwd: dir });
}

let cluster: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ingresskit-migrate-'));
  // No IngressClass among them, as in most directories of Ingresses.
  cluster = await writeManifests('cluster.yaml', [
    service('shop'),
    service('blog'),
    ingress('shop', 'plain', 'shop.example.com', { className: 'nginx' }),
    ingress('shop', 'login', 'login.example.com', {
      className: 'nginx',
      annotations: {
        [`${prefix}/auth-url`]: 'http://oauth2-proxy.auth.svc.cluster.local/oauth2/auth',
        [`${prefix}/auth-proxy-set-headers`]: 'shop/auth-headers',
        [`${prefix}/configuration-snippet`]: "more_set_headers 'X-Frame-Options: DENY';",
      },
    }),
    ingress('shop', 'sticky', 'sticky.example.com', {
      annotations: { 'kubernetes.io/ingress.class': 'nginx', [`${prefix}/affinity`]: 'cookie' },
    }),
    ingress('blog', 'takeover', 'shop.example.com', { className: 'nginx' }),
    ingress('blog', 'elsewhere', 'blog.example.com', { className: 'traefik' }),
    ingress('wiki', 'no-service', 'wiki.example.com', { className: 'nginx' }),
  ]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ingresskit migrate', () => {
  it("sorts every Ingress of ingress-nginx's class into served identically, with differences, or not served", async () => {
    const result = await migrate(['--manifests', cluster, '--output=json']);
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout) as MigrationReport;
    expect(Object.fromEntries(report.ingresses.map((entry) => [entry.ingress, entry.outcome]))).toEqual({
      'blog/takeover': 'served with differences',
      'shop/login': 'not served',
      'shop/plain': 'served identically',
      'shop/sticky': 'served with differences',
      'wiki/no-service': 'served identically',
    });
    expect(report.totals).toEqual({
      'served identically': 2,
      'served with differences': 2,
      'not served': 1,
    });
    expect(report.otherClasses.map((other) => other.ingress)).toEqual(['blog/elsewhere']);
    // A refused annotation names itself and says what to do; the supported auth-url and
    // auth-proxy-set-headers are listed with their differences.
    const login = report.ingresses.find((entry) => entry.ingress === 'shop/login')!;
    expect(login.findings.map((finding) => [finding.kind, finding.field])).toEqual([
      ['error', `metadata.annotations["${prefix}/configuration-snippet"]`],
      ['difference', `metadata.annotations["${prefix}/auth-proxy-set-headers"]`],
      ['difference', `metadata.annotations["${prefix}/auth-url"]`],
    ]);
    expect(login.findings[0]!.advice).toContain('never accepted');
    expect(login.findings[1]!.advice).toBeUndefined();
    expect(login.findings[2]!.advice).toBeUndefined();
    // A supported annotation served differently is a difference, with the difference stated.
    const sticky = report.ingresses.find((entry) => entry.ingress === 'shop/sticky')!;
    expect(sticky.findings).toEqual([
      expect.objectContaining({ kind: 'difference', field: `metadata.annotations["${prefix}/affinity"]` }),
    ]);
    // ingress-nginx merges a host across namespaces; IngressKit keeps it to the oldest one's.
    const takeover = report.ingresses.find((entry) => entry.ingress === 'blog/takeover')!;
    expect(takeover.routes).toEqual({ total: 1, served: 0 });
    expect(takeover.findings.map((finding) => finding.message).join('\n')).toContain(
      '--allow-cross-namespace-hosts',
    );
    // A Service that does not exist gets 503 in both: a note, not a difference.
    const noService = report.ingresses.find((entry) => entry.ingress === 'wiki/no-service')!;
    expect(noService.findings).toEqual([
      expect.objectContaining({
        kind: 'note',
        message: expect.stringContaining('Service wiki/app not found'),
      }),
    ]);
  });

  it('exits 1 when an Ingress would not be served, and prints one line per Ingress with its findings', async () => {
    const result = await migrate(['--manifests', cluster]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/^served identically {7}shop\/plain$/m);
    expect(result.stdout).toMatch(/^not served {15}shop\/login\n {4}error: metadata\.annotations/m);
    expect(result.stdout).toContain('      what to do: ');
    expect(result.stdout).toContain(
      "5 Ingress(es) of ingress-nginx's class: 2 served identically, 2 served with differences, 1 not served.",
    );
  });

  it('assesses with the flags the controller will run with', async () => {
    const result = await migrate(['--manifests', cluster, '--output=json', '--allow-cross-namespace-hosts']);
    const report = JSON.parse(result.stdout) as MigrationReport;
    // Its only path is shop/plain's too, and the older Ingress keeps it: so does ingress-nginx.
    const takeover = report.ingresses.find((entry) => entry.ingress === 'blog/takeover')!;
    expect(takeover).toMatchObject({ outcome: 'served identically', routes: { total: 1, served: 0 } });
    expect(takeover.findings).toEqual([
      expect.objectContaining({ kind: 'note', message: expect.stringContaining('older Ingress shop/plain') }),
    ]);
  });

  it('exits 0 when every Ingress is served, and reads the IngressClass of the directory when it has one', async () => {
    const ownClass = await writeManifests('own-class.yaml', [
      service('shop'),
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: 'example.com/another-controller' },
      },
      ingress('shop', 'plain', 'shop.example.com', { className: 'nginx' }),
    ]);
    const other = await migrate(['--manifests', ownClass, '--output=json']);
    expect(other.exitCode).toBe(0);
    const report = JSON.parse(other.stdout) as MigrationReport;
    expect(report.ingresses).toEqual([]);
    expect(report.otherClasses.map((entry) => entry.ingress)).toEqual(['shop/plain']);
    const same = await migrate([
      '--manifests',
      ownClass,
      '--output=json',
      '--controller-class=example.com/another-controller',
    ]);
    expect(same.exitCode).toBe(0);
    expect((JSON.parse(same.stdout) as MigrationReport).totals['served identically']).toBe(1);
  });

  it('notes a Service port that does not exist, numbered or named, as served identically (503 in both)', async () => {
    const portless = { ...service('shop'), spec: { ports: [{ name: 'http', port: 8080 }] } };
    const named = ingress('shop', 'named', 'named.example.com', { className: 'nginx' }) as {
      spec: { rules: { http: { paths: { backend: unknown }[] } }[] };
    };
    named.spec.rules[0]!.http.paths[0]!.backend = { service: { name: 'app', port: { name: 'grpc' } } };
    const manifests = await writeManifests('no-port.yaml', [
      portless,
      ingress('shop', 'numbered', 'numbered.example.com', { className: 'nginx' }),
      named,
    ]);
    const result = await migrate(['--manifests', manifests, '--output=json']);
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout) as MigrationReport;
    expect(
      report.ingresses.map(({ ingress, outcome, findings }) => ({ ingress, outcome, findings })),
    ).toEqual([
      {
        ingress: 'shop/named',
        outcome: 'served identically',
        findings: [
          expect.objectContaining({ kind: 'note', message: expect.stringContaining('no port named "grpc"') }),
        ],
      },
      {
        ingress: 'shop/numbered',
        outcome: 'served identically',
        findings: [
          expect.objectContaining({ kind: 'note', message: expect.stringContaining('has no port 80;') }),
        ],
      },
    ]);
  });

  it('writes at most 16 rules per HTTPRoute, as the schema allows, and YAML with the findings as comments', async () => {
    const many = ingress('shop', 'many', 'many.example.com', { className: 'nginx' }) as {
      spec: { rules: { http: { paths: unknown[] } }[] };
    };
    const path = (index: number) => ({
      path: `/p${index}`,
      pathType: 'Prefix',
      backend: { service: { name: 'app', port: { number: 80 } } },
    });
    many.spec.rules[0]!.http.paths = Array.from({ length: 20 }, (_, index) => path(index));
    const manifests = await writeManifests('many.yaml', [service('shop'), many]);
    const json = await migrate(['--manifests', manifests, '--to=gateway-api', '--output=json']);
    expect(json.exitCode).toBe(0);
    const conversion = JSON.parse(json.stdout) as GatewayApiConversion;
    expect(conversion.ingresses).toEqual([
      { ingress: 'shop/many', converted: true, httpRoutes: ['many', 'many-2'], findings: [] },
    ]);
    const rulesOf = (name: string) =>
      (
        conversion.objects.find((object) => (object.metadata as { name: string }).name === name)!.spec as {
          rules: unknown[];
        }
      ).rules.length;
    expect([rulesOf('many'), rulesOf('many-2')]).toEqual([16, 4]);
    const yaml = await migrate(['--manifests', cluster, '--to=gateway-api']);
    expect(yaml.exitCode).toBe(1);
    expect(yaml.stdout).toMatch(/^kind: Gateway$/m);
    expect(yaml.stdout).toContain('# Ingress shop/login: not converted');
    expect(yaml.stdout).toMatch(
      /# Ingress shop\/plain: converted\napiVersion: gateway\.networking\.k8s\.io\/v1\nkind: HTTPRoute/,
    );
  });
  it('converts no Ingress of a host that asks for client certificates, not even one without auth-tls', async () => {
    const ca = createSelfSignedCertificate({ commonName: 'clients' });
    const caSecret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'clients-ca', namespace: 'shop' },
      data: { 'ca.crt': Buffer.from(ca.certificatePem).toString('base64') },
    };
    const guarded = ingress('shop', 'guarded', 'mtls.example.com', {
      className: 'nginx',
      annotations: { [`${prefix}/auth-tls-secret`]: 'shop/clients-ca' },
    });
    // Older than nothing it shares a host with, and without the annotation: auth-tls covers it all the same.
    const other = ingress('shop', 'other', 'mtls.example.com', { className: 'nginx' }) as {
      spec: { rules: { http: { paths: { path: string }[] } }[] };
    };
    other.spec.rules[0]!.http.paths[0]!.path = '/other';
    const manifests = await writeManifests('mtls.yaml', [service('shop'), caSecret, guarded, other]);
    const json = await migrate(['--manifests', manifests, '--to=gateway-api', '--output=json']);
    expect(json.exitCode).toBe(1);
    const conversion = JSON.parse(json.stdout) as GatewayApiConversion;
    for (const name of ['shop/guarded', 'shop/other']) {
      expect(conversion.ingresses.find((entry) => entry.ingress === name)).toEqual(
        expect.objectContaining({
          converted: false,
          findings: expect.arrayContaining([
            expect.objectContaining({
              kind: 'error',
              message: expect.stringContaining('client certificates'),
            }),
          ]),
        }),
      );
    }
  });
});
