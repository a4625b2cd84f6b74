/**
 * The old @ingresskit/nginx-template (the baseline's build, bench/.out/baseline: the working tree's
 * package is being rewritten for the reload-free data plane and needs a benchmark of its own):
 * buildConfiguration + renderNginxConf for 1,000 and 10,000 Ingresses
 * (2 paths, 1 Service and 1 EndpointSlice each, 10% with TLS), next to its floor measured on the
 * same output in the same run: `nginx -t` (Debian nginx with the Lua module), which every reload
 * pays anyway. Also the endpoint-only path (build + diff + payload), which never reloads.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BASELINE_COMMIT, importBaselineTemplate, type BaselineConfiguration } from './lib/baseline.js';
import { createCertificatePool } from './lib/fixture.js';
import { formatNumber, memoryMiB, percentile, printSection, timeIt } from './lib/measure.js';

const {
  backendsPayload,
  buildConfiguration,
  createCertificateCache,
  diffConfigurations,
  luaFiles,
  renderNginxConf,
} = await importBaselineTemplate();
type Configuration = BaselineConfiguration;
type ConfigurationInput = Record<string, unknown>;
const sizes = [1_000, 10_000];
const tlsEvery = 10;
const certificatePool = 20;
const work = mkdtempSync(join(tmpdir(), 'ingresskit-bench-nginx-'));
chmodSync(work, 0o755);

// A pool of distinct wildcard certificates; each TLS Ingress gets its own Secret holding one of
// them, so every Secret is parsed and checked as in a real cluster.
const pool = createCertificatePool(work, certificatePool);

function createInput(count: number, endpointShift = 0): ConfigurationInput {
  const input = { ingresses: [], services: [], endpointSlices: [], secrets: [] } as unknown as {
    ingresses: unknown[];
    services: unknown[];
    endpointSlices: unknown[];
    secrets: unknown[];
  };
  for (let i = 0; i < count; i++) {
    const namespace = `team-${i % 50}`;
    const name = `app-${i}`;
    const host = `app-${i}.bench.test`;
    const backend = (path: string, pathType: string) => ({
      path,
      pathType,
      backend: { service: { name, port: { name: 'http' } } },
    });
    const spec: Record<string, unknown> = {
      rules: [{ host, http: { paths: [backend('/', 'Prefix'), backend('/api', 'Prefix')] } }],
    };
    if (i % tlsEvery === 0) {
      spec.tls = [{ hosts: [host], secretName: `${name}-tls` }];
      const certificate = pool[i % certificatePool]!;
      input.secrets.push({
        metadata: { namespace, name: `${name}-tls` },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': certificate.crt, 'tls.key': certificate.key },
      });
    }
    input.ingresses.push({
      metadata: {
        namespace,
        name,
        creationTimestamp: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
      },
      spec,
    });
    input.services.push({
      metadata: { namespace, name },
      spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
    const base = (i * 3 + endpointShift) % 60000;
    input.endpointSlices.push({
      metadata: { namespace, name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: [0, 1, 2].map((offset) => ({
        addresses: [`10.${(base + offset) >> 16}.${((base + offset) >> 8) & 255}.${(base + offset) & 255}`],
        conditions: { ready: true },
      })),
    });
  }
  return input;
}

function writePrefix(dir: string, conf: string, configuration: Configuration): void {
  mkdirSync(join(dir, 'certs'), { recursive: true });
  chmodSync(dir, 0o755);
  for (const file of luaFiles) {
    mkdirSync(dirname(join(dir, 'lua', file.relativePath)), { recursive: true });
    copyFileSync(file.path, join(dir, 'lua', file.relativePath));
  }
  for (const certificate of configuration.certificates) {
    writeFileSync(join(dir, 'certs', certificate.fileName), certificate.pem, { mode: 0o600 });
  }
  writeFileSync(join(dir, 'nginx.conf'), conf);
}

function nginxTestMs(dir: string): number {
  const start = performance.now();
  const run = spawnSync('/usr/sbin/nginx', ['-t', '-q', '-p', dir, '-c', join(dir, 'nginx.conf')], {
    encoding: 'utf8',
  });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`nginx -t failed: ${run.stderr}`);
  if (run.stderr.includes('[warn]')) process.stderr.write(`nginx -t warned: ${run.stderr}\n`);
  return ms;
}

const rows: Record<string, string | number>[] = [];
try {
  for (const count of sizes) {
    const input = createInput(count);
    const runs = count >= 10_000 ? 3 : 7;
    const renderOptions = { httpPort: 8080, httpsPort: 8443, statusPort: 10999, workerProcesses: 1 };
    // Warm up the JIT and the template compiler once.
    renderNginxConf(buildConfiguration(input).configuration, renderOptions);

    const buildSamples: number[] = [];
    const renderSamples: number[] = [];
    let configuration: Configuration | undefined;
    let conf = '';
    for (let run = 0; run < runs; run++) {
      const built = await timeIt(() => buildConfiguration(input));
      const rendered = await timeIt(() => renderNginxConf(built.result.configuration, renderOptions));
      buildSamples.push(built.ms);
      renderSamples.push(rendered.ms);
      configuration = built.result.configuration;
      conf = rendered.result;
    }
    const heap = memoryMiB().heapUsed;

    const dir = join(work, `n${count}`);
    writePrefix(dir, conf, configuration!);
    const nginxSamples = Array.from({ length: count >= 10_000 ? 2 : 3 }, () => nginxTestMs(dir));

    // The controller keeps a certificate cache, so a rebuild for moved endpoints parses nothing.
    const certificateCache = createCertificateCache();
    buildConfiguration(input, { certificateCache });
    const shifted = createInput(count, 1);
    const dynamic = await timeIt(() => {
      const next = buildConfiguration(shifted, { certificateCache }).configuration;
      const diff = diffConfigurations(configuration, next);
      if (diff.reloadRequired) throw new Error('an endpoint-only change must not need a reload');
      return backendsPayload(next).length;
    });

    const buildMs = percentile(buildSamples, 50);
    const renderMs = percentile(renderSamples, 50);
    const nginxMs = percentile(nginxSamples, 50);
    rows.push({
      Ingresses: formatNumber(count, 0),
      'build ms': formatNumber(buildMs),
      'render ms': formatNumber(renderMs),
      'build+render ms': formatNumber(buildMs + renderMs),
      'nginx -t ms (floor)': formatNumber(nginxMs),
      'build+render / nginx -t': `${formatNumber((buildMs + renderMs) / nginxMs, 2)}×`,
      'nginx.conf MiB': formatNumber(conf.length / 2 ** 20, 2),
      'endpoint change: build+diff+payload ms (no reload)': formatNumber(dynamic.ms),
      'payload KiB': formatNumber(dynamic.result / 1024, 0),
      'heap MiB': formatNumber(heap, 0),
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

printSection(
  `nginx-template (old, ${BASELINE_COMMIT}): build + render vs nginx -t`,
  rows,
  `Each Ingress has 2 Prefix paths, 1 Service and 1 EndpointSlice (3 ready endpoints); every ${tlsEvery}th has TLS ` +
    `(its own Secret, ${certificatePool} distinct certificates). Medians of 7 runs (1,000) and 3 runs (10,000); ` +
    '`nginx -t` is Debian nginx 1.22 with the Lua module on the same rendered file, the floor every reload pays. ' +
    'build is cold (every certificate parsed and checked). The endpoint-change column is a full rebuild after every ' +
    'endpoint moved, with a warm certificate cache as the controller keeps one, its diff (no reload) and the POST body.',
);
