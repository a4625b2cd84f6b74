/**
 * The in-run floor of the old data plane, measured in the benchmark process on the very objects
 * the controller serves, with the baseline's own @ingresskit/nginx-template (bench/.out/baseline):
 * buildConfiguration + renderNginxConf + `nginx -t` (what any sync that reloads must do), and the
 * bare nginx start and reload on that file.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importBaselineTemplate, type BaselineConfiguration, type BaselineTemplate } from './baseline.js';
import { percentile } from './measure.js';
import { findFreePort, timeNginxTest } from './controller-process.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** The objects buildConfiguration reads, picked out of a manifest list. */
export function toConfigurationInput(objects: readonly Record<string, unknown>[]): Record<string, unknown> {
  const byKind = (kind: string) => objects.filter((object) => object.kind === kind);
  return {
    ingresses: byKind('Ingress'),
    services: byKind('Service'),
    endpointSlices: byKind('EndpointSlice'),
    secrets: byKind('Secret'),
  };
}

/** Medians of the floor's steps, in ms, and the size of the rendered nginx.conf. */
export interface ReloadFloor {
  buildMs: number;
  renderMs: number;
  nginxTestMs: number;
  /** build + render + `nginx -t`. */
  totalMs: number;
  confMiB: number;
  /** The rendered file, in `dir`/nginx.conf. */
  dir: string;
}

/** Median of `runs` runs of build (cold certificate parsing) + render + `nginx -t`, in `dir`. */
export async function measureReloadFloor(
  objects: readonly Record<string, unknown>[],
  dir: string,
  runs: number,
): Promise<ReloadFloor> {
  const template = await importBaselineTemplate();
  const { buildConfiguration, renderNginxConf } = template;
  const input = toConfigurationInput(objects);
  const options = {
    httpPort: await findFreePort(),
    httpsPort: await findFreePort(),
    statusPort: await findFreePort(),
    listenAddresses: ['127.0.0.1'],
    workerProcesses: 'auto' as const,
    accessLogPath: false as const,
  };
  const build: number[] = [];
  const render: number[] = [];
  const test: number[] = [];
  let conf = '';
  for (let run = 0; run < runs; run++) {
    let start = performance.now();
    const { configuration } = buildConfiguration(input, { now: Date.now() });
    build.push(performance.now() - start);
    start = performance.now();
    conf = renderNginxConf(configuration, options);
    render.push(performance.now() - start);
    writePrefix(template, dir, conf, configuration);
    test.push(timeNginxTest(dir));
  }
  const buildMs = percentile(build, 50);
  const renderMs = percentile(render, 50);
  const nginxTestMs = percentile(test, 50);
  return {
    buildMs,
    renderMs,
    nginxTestMs,
    totalMs: buildMs + renderMs + nginxTestMs,
    confMiB: conf.length / 2 ** 20,
    dir,
  };
}

/**
 * A bare nginx running `dir`/nginx.conf (as rendered by measureReloadFloor): the time from spawn
 * until its workers exist, and the median of `runs` reloads, each from SIGHUP until the master has
 * parsed the file again and forked new workers (seen in /proc). What nginx alone costs, with no
 * controller around it.
 */
export async function measureNginxAlone(
  dir: string,
  runs: number,
): Promise<{ startMs: number; reloadMs: number }> {
  const spawnedAt = performance.now();
  const nginx = spawn('/usr/sbin/nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => nginx.once('exit', () => resolve()));
  const children = () => {
    try {
      return readFileSync(`/proc/${nginx.pid}/task/${nginx.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter((pid) => pid !== '');
    } catch {
      return [];
    }
  };
  try {
    const deadline = performance.now() + 120_000;
    while (children().length === 0) {
      if (performance.now() > deadline || nginx.exitCode !== null) throw new Error('nginx did not start');
      await sleep(2);
    }
    const startMs = performance.now() - spawnedAt;
    const samples: number[] = [];
    // All workers must exist before a reload, or a late one would look like a new one.
    const settle = async () => {
      let last = children().join(' ');
      let stableSince = performance.now();
      while (performance.now() - stableSince < 300) {
        await sleep(20);
        const now = children().join(' ');
        if (now !== last) {
          last = now;
          stableSince = performance.now();
        }
      }
    };
    for (let run = 0; run < runs; run++) {
      await settle();
      const old = new Set(children());
      const start = performance.now();
      nginx.kill('SIGHUP');
      while (!children().some((pid) => !old.has(pid))) {
        if (performance.now() - start > 120_000) throw new Error('nginx did not reload');
        await sleep(2);
      }
      samples.push(performance.now() - start);
      // Let the old workers leave before the next reload.
      while (children().some((pid) => old.has(pid))) await sleep(10);
    }
    return { startMs, reloadMs: percentile(samples, 50) };
  } finally {
    nginx.kill('SIGQUIT');
    await exited;
  }
}

function writePrefix(
  template: BaselineTemplate,
  dir: string,
  conf: string,
  configuration: BaselineConfiguration,
): void {
  mkdirSync(join(dir, 'certs'), { recursive: true });
  chmodSync(dir, 0o755);
  for (const file of template.luaFiles) {
    mkdirSync(dirname(join(dir, 'lua', file.relativePath)), { recursive: true });
    copyFileSync(file.path, join(dir, 'lua', file.relativePath));
  }
  for (const certificate of configuration.certificates)
    writeFileSync(join(dir, 'certs', certificate.fileName), certificate.pem, { mode: 0o600 });
  writeFileSync(join(dir, 'nginx.conf'), conf);
}
