/**
 * route-model and nginx-template without nginx: what one change costs at 1,000, 10,000 and 100,000
 * Ingresses. The incremental builder re-assembles the hostname a change touches; the in-run
 * baseline assembles every hostname again and diffs the whole table (what a non-incremental
 * controller does per change). Then the data plane's side: compiling the one changed host into the
 * push body, against compiling the whole table (a full push).
 */
import {
  assembleVirtualHost,
  createRouteTableBuilder,
  diffRouteTables,
  type RouteContribution,
  type RouteTable,
} from '@ingresskit/route-model';
import { buildConfiguration, createDataPlaneUpdate } from '@ingresskit/nginx-template';
import { formatNumber, memoryMiB, printSection, timeIt } from './lib/measure.js';
import { formatRatio } from './lib/report.js';

const SIZES = (process.env.BENCH_ROUTE_TABLE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const CHANGES = 200;

/** One Ingress-like source: a host with two Prefix routes and its backend. */
function contributionOf(index: number, extraPath = false): RouteContribution {
  const name = `app-${index}`;
  const origin = { kind: 'Ingress', namespace: `team-${index % 100}`, name, createdAt: index, index: [0, 0] };
  const route = (path: string, position: number) => ({
    id: `Ingress/team-${index % 100}/${name}/r0/p${position}`,
    origin: { ...origin, index: [0, position] },
    match: { path: { type: 'PathPrefix' as const, value: path } },
    action: {
      type: 'forward' as const,
      backends: [{ backend: `team-${index % 100}/${name}:80`, weight: 1 }],
    },
    policy: { redirectToHttps: { statusCode: 308 as const, onlyIfHostHasTls: true } },
  });
  const paths = extraPath ? ['/app', '/static', `/v${index}`] : ['/app', '/static'];
  return {
    source: { kind: 'Ingress', namespace: `team-${index % 100}`, name },
    hosts: [{ hostname: `${name}.bench.test`, routes: paths.map(route), fallback: 'table-default' }],
    tls: [],
  };
}

const listeners = [
  { name: 'http', port: 80, protocol: 'HTTP' as const },
  { name: 'https', port: 443, protocol: 'HTTPS' as const },
];

/** The non-incremental way: every hostname assembled again from every contribution. */
function assembleEverything(contributions: readonly RouteContribution[]): RouteTable {
  const virtualHosts = contributions.map((contribution) => {
    const host = contribution.hosts[0]!;
    return assembleVirtualHost(host.hostname, [{ source: contribution.source, host }]).virtualHost!;
  });
  return { listeners, virtualHosts, tls: [], certificates: [], backends: [] };
}

const rows: Record<string, string>[] = [];
for (const size of SIZES) {
  const contributions = Array.from({ length: size }, (_, index) => contributionOf(index));
  const before = memoryMiB().heapUsed;
  const builder = createRouteTableBuilder({ listeners });
  const build = await timeIt(() => {
    for (const contribution of contributions) builder.setContribution(contribution);
    return builder.commit();
  });
  const table = builder.table();
  const heap = memoryMiB().heapUsed - before;

  // One change: a third path on one Ingress, CHANGES times over different Ingresses.
  const changed = Array.from({ length: CHANGES }, (_, step) => (step * 7919) % size);
  const incremental = await timeIt(() => {
    for (const index of changed) {
      builder.setContribution(contributionOf(index, true));
      builder.commit();
    }
  });
  const rebuilds = Math.max(1, Math.min(CHANGES, Math.floor(2_000_000 / size)));
  const full = await timeIt(() => {
    for (let step = 0; step < rebuilds; step++) {
      const next = contributions.slice();
      next[changed[step % CHANGES]!] = contributionOf(changed[step % CHANGES]!, true);
      diffRouteTables(table, assembleEverything(next));
    }
  });
  const perChangeMs = incremental.ms / CHANGES;
  const perRebuildMs = full.ms / rebuilds;

  // The data plane: the push body of one changed host, against a full push of the table.
  builder.setContribution(contributionOf(1, false));
  const delta = builder.commit();
  const deltaBody = await timeIt(() => createDataPlaneUpdate(delta));
  const fullBody = await timeIt(() => createDataPlaneUpdate(builder.table()));
  const configuration = await timeIt(
    () => buildConfiguration(builder.table(), { controlSocketPath: '/run/ingresskit.sock' }).configuration,
  );

  rows.push({
    Ingresses: formatNumber(size, 0),
    'build the table ms': formatNumber(build.ms, 0),
    'heap of the table MiB': formatNumber(heap, 1),
    'one change, incremental ms': formatNumber(perChangeMs, 3),
    'one change, assemble all + diff ms (baseline)': formatNumber(perRebuildMs, 1),
    'incremental / baseline': formatRatio(perChangeMs, perRebuildMs),
    'push body, one host ms': formatNumber(deltaBody.ms, 3),
    'push body, whole table ms (MiB)': `${formatNumber(fullBody.ms, 0)} (${formatNumber(fullBody.result.length / 2 ** 20, 1)})`,
    'nginx.conf configuration from the table ms': formatNumber(configuration.ms, 0),
  });
}

printSection(
  'route-model and nginx-template: the cost of one change at any table size',
  rows,
  `Each Ingress contributes one host with two Prefix routes. "One change" adds a path to one Ingress and ` +
    `commits: the incremental builder re-assembles that host (mean of ${CHANGES} changes); the in-run baseline ` +
    `assembles every host again and diffs the whole table. The push body of one changed host is what the ` +
    `controller sends nginx per change; the whole table is what it sends after nginx (re)starts. The nginx.conf ` +
    `configuration is built from the whole table here (the controller keeps profiles per host instead).`,
);
