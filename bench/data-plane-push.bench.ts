/**
 * nginx's control endpoint with real nginx (one worker): what a full push of 1,000 and 10,000
 * hosts (each with its backend) costs, what a one-host change costs, and what recomputing the
 * content digest of everything stored costs (GET /configuration/digest, the controller's periodic
 * content check). Every push keeps the digest up to date by hashing what it writes, so the
 * recompute is also about what the digest adds to a full push.
 */
import { diffRouteTables, type RouteTable } from '@ingresskit/route-model';
import { DIGEST_ENDPOINT_PATH } from '@ingresskit/nginx-template';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
} from '../packages/nginx-template/src/testing/data-plane.js';
import { sendControlRequest } from '../packages/nginx-template/src/testing/nginx-process.js';
import { formatNumber, percentile, printSection, timeIt } from './lib/measure.js';
import { formatRatio } from './lib/report.js';

const SIZES = (process.env.BENCH_PUSH_SIZES ?? '1000,10000').split(',').map(Number);
const CHANGES = 50;

function tableOf(ports: { http: number; https: number }, size: number, changed = -1): RouteTable {
  const hosts = Array.from({ length: size }, (_, index) => ({
    hostname: `app-${index}.bench.test`,
    hostnameMatch: 'exact' as const,
    routes: ['/app', '/static', ...(index === changed ? ['/new'] : [])].map((path, position) =>
      createTestRoute(`app-${index}/p${position}`, {
        match: { path: { type: 'PathPrefix', value: path } },
        action: { type: 'forward', backends: [{ backend: `team/app-${index}:80`, weight: 1 }] },
      }),
    ),
  }));
  return {
    listeners: createListeners(ports),
    virtualHosts: hosts,
    tls: [],
    certificates: [],
    backends: hosts.map((_, index) => ({
      id: `team/app-${index}:80`,
      endpoints: [{ address: `10.0.${index >> 8}.${index & 255}`, port: 8080 }],
    })),
  };
}

const rows: Record<string, string>[] = [];
for (const size of SIZES) {
  const ports = await allocateListenerPorts();
  const table = tableOf(ports, size);
  const plane = await startDataPlane({ table, ports, workers: 1, render: { sharedDictSize: '256m' } });
  try {
    const full = await timeIt(() => plane.push(table));
    if (full.result.status !== 201) throw new Error(`full push answered ${full.result.status}`);
    const changes: number[] = [];
    let previous = table;
    for (let step = 0; step < CHANGES; step++) {
      const next = tableOf(ports, size, (step * 7919) % size);
      const delta = diffRouteTables(previous, next);
      const change = await timeIt(() => plane.push(delta));
      if (change.result.status !== 201) throw new Error(`change answered ${change.result.status}`);
      changes.push(change.ms);
      previous = next;
    }
    const digests: number[] = [];
    for (let step = 0; step < 5; step++) {
      const digest = await timeIt(() =>
        sendControlRequest(plane.prefix.socketPath, 'GET', DIGEST_ENDPOINT_PATH),
      );
      if (digest.result.status !== 200) throw new Error(`digest answered ${digest.result.status}`);
      digests.push(digest.ms);
    }
    const recompute = percentile(digests, 50);
    rows.push({
      Hosts: formatNumber(size, 0),
      'full push ms': formatNumber(full.ms, 0),
      'one-host change ms (p50 / p99)': `${formatNumber(percentile(changes, 50), 1)} / ${formatNumber(percentile(changes, 99), 1)}`,
      'digest recompute ms (p50 of 5)': formatNumber(recompute, 1),
      'recompute / full push': formatRatio(recompute, full.ms),
    });
  } finally {
    await plane.stop();
  }
}

printSection(
  'nginx control endpoint: pushes and the content digest',
  rows,
  `One nginx worker. Each host has two Prefix routes and its own backend with one endpoint (two entries ` +
    `per host). A full push sends every entry (what a restarted nginx gets); a change adds a path to one ` +
    `host (mean of ${CHANGES}, each pushed as the delta of two tables). The digest recompute hashes every ` +
    `stored entry, as the controller's content check asks every 30 s; a push hashes only what it writes, ` +
    `so the recompute against the full push bounds what the digest adds to a full push.`,
);
