/**
 * Where the controller's memory goes as it syncs (the evidence behind bench/RSS-DIAGNOSIS.md).
 *
 *   run:      pnpm exec node --conditions=@ingresskit/source --import tsx bench/tools/rss-diagnosis.ts run
 *   analyze:  pnpm exec node --max-old-space-size=8192 --conditions=@ingresskit/source --import tsx \
 *               bench/tools/rss-diagnosis.ts analyze A B
 *   owners:   pnpm exec node --max-old-space-size=8192 --conditions=@ingresskit/source --import tsx \
 *               bench/tools/rss-diagnosis.ts owners FILE.heapsnapshot
 *   shapes:   the same with `shapes FILE.heapsnapshot [OWNER]`: what each owner holds, by object shape
 *   allocations: pnpm exec node --expose-gc --conditions=@ingresskit/source --import tsx \
 *               bench/tools/rss-diagnosis.ts allocations
 *
 * `run` starts one controller (RSS_SIDE, `baseline` by default) against local-apiserver with
 * RSS_SIZE fixture Ingresses (1,000), makes RSS_CHANGES changes one at a time (Ingress edits and
 * endpoint moves alternating, each waited for through nginx, 300 by default), samples /proc and
 * Node's own accounting (memory-probe.mjs, preloaded) every 25 changes, and writes heap snapshots
 * (SIGUSR2 with `--heapsnapshot-signal`) after the warm-up (20 changes), half-way and at the end
 * into RSS_OUT (bench/.out/rss-diagnosis/SIDE-SIZE); RSS_SNAPSHOTS=0 leaves them out, RSS_ENV and
 * RSS_NODE_OPTIONS change the controller's environment (e.g. glibc malloc tunables) or heap. `analyze` compares two snapshots of that process: growth by
 * constructor, what the Controller and its NginxRuntime retain, and where the objects new in B
 * hang (see lib/heap-snapshot.ts). `allocations` measures, in-process with the baseline's own
 * packages, how much V8 heap each step of one old-path sync allocates (RSS_SIZE Ingresses).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { GCProfiler } from 'node:v8';
import {
  baselineRoot,
  importBaselineTemplate,
  readSides,
  repoRoot,
  type BaselineConfiguration,
  type Side,
} from '../lib/baseline.js';
import { measureChange, createChangeMaker, type ChangeKind } from '../lib/changes.js';
import { createBenchFixture, startBenchCluster, startServingController } from '../lib/cluster.js';
import { waitUntil } from '../lib/controller-process.js';
import { createCertificatePool, createClusterObjects } from '../lib/fixture.js';
import { toConfigurationInput } from '../lib/floor.js';
import {
  diffByClass,
  findGrowthAnchors,
  heldByOwners,
  heldByShape,
  idSet,
  readHeapSnapshot,
  retainedByField,
  totalsByClass,
} from '../lib/heap-snapshot.js';
import { formatNumber, printSection } from '../lib/measure.js';
import { sampleMemory, type MemorySample } from '../lib/memory.js';

const MiB = 2 ** 20;
/** Changes before the first snapshot. */
const WARM_UP = 20;

async function runScenario(): Promise<void> {
  const side = (process.env.RSS_SIDE ?? readSides()[0] ?? 'baseline') as Side;
  const size = Number(process.env.RSS_SIZE ?? 1_000);
  const changes = Number(process.env.RSS_CHANGES ?? 300);
  // A heap snapshot leaves its own native buffers behind: RSS_SNAPSHOTS=0 for the growth alone.
  const withSnapshots = process.env.RSS_SNAPSHOTS !== '0';
  const out = process.env.RSS_OUT ?? join(repoRoot, 'bench/.out/rss-diagnosis', `${side}-${size}`);
  mkdirSync(out, { recursive: true });
  const fixture = await createBenchFixture('rss');
  const cluster = await startBenchCluster(fixture, size);
  const probeFile = join(out, 'memory-probe.jsonl');
  writeFileSync(probeFile, '');
  // RSS_ENV (`A=1 B=2`) and RSS_NODE_OPTIONS let an experiment change the allocator or the heap.
  const extraEnv = Object.fromEntries(
    (process.env.RSS_ENV ?? '')
      .split(' ')
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  const controller = await startServingController(cluster, side, {
    syncRateLimit: 0,
    nodeOptions: [
      '--heapsnapshot-signal=SIGUSR2',
      `--diagnostic-dir=${out}`,
      '--expose-gc',
      `--import=${pathToFileURL(join(import.meta.dirname, 'memory-probe.mjs')).href}`,
      ...(process.env.RSS_NODE_OPTIONS ?? '').split(' ').filter((option) => option !== ''),
    ],
    env: { ...extraEnv, MEMORY_PROBE_FILE: probeFile },
  });
  const rows: Record<string, string | number>[] = [];
  const snapshots: string[] = [];
  const lines = () =>
    readFileSync(probeFile, 'utf8')
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as ProbeLine);
  // A sample: /proc and Node's accounting as they are; with `gc`, Node's accounting again right
  // after a full GC (the probe's SIGWINCH), which splits live heap from garbage.
  let previous: { syncs: number; gc: ProbeLine['gc'] } | undefined;
  const sample = async (label: string, done: number, gc = false) => {
    const memory: MemorySample = await sampleMemory(controller);
    const probe = lines().at(-1)!;
    const syncs = memory.syncs - (previous?.syncs ?? 0);
    const perSync = (pick: (counts: ProbeLine['gc']) => number) =>
      previous === undefined || syncs === 0
        ? '—'
        : formatNumber((pick(probe.gc) - pick(previous.gc)) / MiB / syncs, 1);
    const gcRow = {
      'allocated MiB per sync': perSync((counts) => counts.allocated),
      'promoted MiB per sync': perSync((counts) => counts.promoted),
      'scavenges / mark-compacts since last sample':
        previous === undefined
          ? '—'
          : `${probe.gc.scavenges - previous.gc.scavenges} / ${probe.gc.markCompacts - previous.gc.markCompacts}`,
    };
    previous = { syncs: memory.syncs, gc: probe.gc };
    let collected: ProbeLine | undefined;
    if (gc) {
      const before = lines().length;
      process.kill(controller.pid, 'SIGWINCH');
      await waitUntil(
        () =>
          lines()
            .slice(before)
            .some((line) => line.reason === 'gc'),
        10_000,
        20,
      );
      collected = lines()
        .slice(before)
        .find((line) => line.reason === 'gc');
    }
    const outside = (line: ProbeLine) =>
      formatNumber(line.rss / MiB - line.heapTotal / MiB - line.external / MiB - memory.file, 1);
    rows.push({
      point: label,
      changes: done,
      syncs: memory.syncs,
      'VmRSS MiB (RssFile)': `${formatNumber(memory.rss, 1)} (${formatNumber(memory.file, 1)})`,
      'V8 heap used / committed MiB': `${formatNumber(probe.heapUsed / MiB, 1)} / ${formatNumber(probe.heapTotal / MiB, 1)}`,
      'external (ArrayBuffers) MiB': `${formatNumber(probe.external / MiB, 1)} (${formatNumber(probe.arrayBuffers / MiB, 1)})`,
      'anonymous RSS outside V8 heap and external MiB': outside(probe),
      '[heap] resident MiB': formatNumber(mainArenaMiB(controller.pid), 1),
      ...gcRow,
      'after a full GC: RSS / heap used / committed / outside MiB':
        collected === undefined
          ? '—'
          : [collected.rss, collected.heapUsed, collected.heapTotal]
              .map((bytes) => formatNumber(bytes / MiB, 1))
              .concat(outside(collected))
              .join(' / '),
    });
    process.stderr.write(`rss-diagnosis: ${label} ${JSON.stringify(rows.at(-1))}\n`);
  };
  const snapshot = async (label: string) => {
    const before = new Set(readdirSync(out));
    process.kill(controller.pid, 'SIGUSR2');
    let file: string | undefined;
    // The snapshot is complete when its size stops changing.
    await waitUntil(
      () => {
        file = readdirSync(out).find((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
        return file !== undefined;
      },
      120_000,
      200,
    );
    let last = -1;
    for (;;) {
      await sleep(1_000);
      const size = readFileSync(join(out, file!)).length;
      if (size === last) break;
      last = size;
    }
    snapshots.push(`${label}: ${join(out, file!)} (${formatNumber(last / MiB, 0)} MiB)`);
  };
  let mappings = '';
  try {
    await sleep(1_000);
    await sample('ready', 0);
    const maker = createChangeMaker(cluster);
    const kinds: ChangeKind[] = ['edit', 'endpoint'];
    const ports = controller.ports;
    for (let done = 1; done <= changes; done++) {
      await measureChange(ports, maker.make(kinds[done % 2]!), { intervalMs: 10 });
      if (withSnapshots && done === WARM_UP) {
        await sample('warm', done);
        await snapshot('A (warm)');
        await sample('after snapshot A', done);
      } else if (withSnapshots && done === Math.floor((WARM_UP + changes) / 2)) {
        await snapshot('B (half-way)');
        await sample('after snapshot B', done);
      } else if (done % 25 === 0) await sample('', done);
    }
    await sleep(1_000);
    await sample('end, then a full GC', changes, true);
    if (withSnapshots) {
      await snapshot('C (end)');
      await sample('after snapshot C', changes);
    }
    mappings = describeMappings(controller.pid);
  } finally {
    await controller.stop();
    await cluster.stop();
    await fixture.stop();
  }
  printSection(
    `rss-diagnosis: ${side} controller, ${formatNumber(size, 0)} Ingresses, ${changes} changes`,
    rows,
    `Snapshots:\n\n${snapshots.map((line) => `- ${line}`).join('\n')}\n\nProbe lines: ${probeFile}. ` +
      `Environment: ${process.env.RSS_ENV ?? '(none)'}; Node options: ${process.env.RSS_NODE_OPTIONS ?? '(none)'}.\n\n` +
      `Largest anonymous mappings at the end (/proc/PID/smaps):\n\n${mappings}`,
  );
}

interface ProbeLine {
  reason: 'interval' | 'gc';
  gc: { scavenges: number; markCompacts: number; allocated: number; promoted: number };
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** Resident MiB of `[heap]`, the brk heap of glibc's main malloc arena. */
function mainArenaMiB(pid: number): number {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const at = text.indexOf(' [heap]\n');
  if (at < 0) return 0;
  return Number(/\nRss:\s+(\d+) kB/.exec(text.slice(at))?.[1] ?? 0) / 1024;
}

/**
 * The anonymous mappings of `pid` by resident size, grouped by their virtual size: glibc's
 * per-thread malloc arenas are 64 MiB regions (HEAP_MAX_SIZE), `[heap]` is the main arena.
 */
function describeMappings(pid: number): string {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const groups = new Map<string, { count: number; sizeKiB: number; rssKiB: number }>();
  let current: { name: string; sizeKiB: number } | undefined;
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const sizeKiB = (parseInt(header[2]!, 16) - parseInt(header[1]!, 16)) / 1024;
      current = { name: header[5]!.trim() || `[anon ${header[3]}]`, sizeKiB };
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current !== undefined && (current.name.startsWith('[anon') || current.name === '[heap]')) {
      const bucket =
        current.name === '[heap]'
          ? '[heap] (main malloc arena)'
          : `${current.name}, ${current.sizeKiB >= 1024 ? `${formatNumber(current.sizeKiB / 1024, 1)} MiB` : `${current.sizeKiB} KiB`} mappings`;
      const entry = groups.get(bucket) ?? { count: 0, sizeKiB: 0, rssKiB: 0 };
      entry.count += 1;
      entry.sizeKiB += current.sizeKiB;
      entry.rssKiB += Number(rss[1]);
      groups.set(bucket, entry);
    }
  }
  return [...groups.entries()]
    .sort((a, b) => b[1].rssKiB - a[1].rssKiB)
    .slice(0, 12)
    .map(
      ([bucket, entry]) =>
        `- ${bucket}: ${entry.count} mapping(s), ${formatNumber(entry.sizeKiB / 1024, 1)} MiB virtual, ` +
        `${formatNumber(entry.rssKiB / 1024, 1)} MiB resident`,
    )
    .join('\n');
}

function analyze(early: string, late: string): void {
  for (const file of [early, late]) if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const a = readHeapSnapshot(early);
  const b = readHeapSnapshot(late);
  const sum = (snapshot: typeof a) => snapshot.selfSize.reduce((total, size) => total + size, 0) / MiB;
  process.stdout.write(
    `A: ${a.nodeCount} objects, ${formatNumber(sum(a), 1)} MiB; B: ${b.nodeCount} objects, ${formatNumber(sum(b), 1)} MiB\n\n`,
  );
  printSection(
    'growth by class (B − A), by bytes',
    diffByClass(a, b)
      .slice(0, 25)
      .map((entry) => ({
        class: entry.className,
        'count B': entry.count,
        'Δ count': entry.countDelta,
        'self MiB B': formatNumber(entry.bytes / MiB, 2),
        'Δ self MiB': formatNumber(entry.bytesDelta / MiB, 2),
      })),
  );
  const earlyIds = idSet(a);
  printSection(
    'objects new in B (id not in A), by class',
    totalsByClass(b, (node) => !earlyIds.has(b.id[node]!))
      .slice(0, 20)
      .map((entry) => ({
        class: entry.className,
        count: entry.count,
        'self MiB': formatNumber(entry.bytes / MiB, 2),
      })),
  );
  for (const className of ['Controller', 'NginxRuntime']) {
    const fields = retainedByField(b, className).filter((field) => field.bytes >= 64 * 1024);
    if (fields.length === 0) continue;
    printSection(
      `what ${className} retains in B (retained size of each field, ≥ 64 KiB)`,
      fields.map((field) => ({
        field: field.field,
        class: field.targetClass,
        'retained MiB': formatNumber(field.bytes / MiB, 2),
      })),
    );
  }
  printSection(
    'where the new objects hang: the first object of A on their shortest path from the roots',
    findGrowthAnchors(b, earlyIds, 15).map((anchor) => ({
      holder: anchor.holder,
      'new objects': anchor.newObjects,
      'new self MiB': formatNumber(anchor.newBytes / MiB, 2),
      'path to the holder': anchor.path,
    })),
  );
}

/**
 * Bytes the V8 heap allocates for one call of `fn` (median of `runs`): over a GC-bracketed call,
 * the sum of heap used before each GC minus heap used after the previous one.
 */
function allocatedMiB(fn: () => unknown, runs = 5): number {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    gc();
    const profiler = new GCProfiler();
    profiler.start();
    let last = process.memoryUsage().heapUsed;
    fn();
    gc();
    let total = 0;
    for (const entry of profiler.stop()?.statistics ?? []) {
      total += entry.beforeGC.heapStatistics.usedHeapSize - last;
      last = entry.afterGC.heapStatistics.usedHeapSize;
    }
    samples.push(total / MiB);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

/**
 * What one old-path sync allocates, step by step, in this process with the baseline's own
 * packages (planSync from its apps/controller dist, the rest from its nginx-template).
 */
async function measureAllocations(): Promise<void> {
  const size = Number(process.env.RSS_SIZE ?? 1_000);
  const template = await importBaselineTemplate();
  const controllerDist = (await import(
    pathToFileURL(join(baselineRoot, 'apps/controller/dist/index.js')).href
  )) as {
    planSync: (
      objects: Record<string, readonly unknown[]>,
      options: Record<string, unknown>,
    ) => { build: { configuration: BaselineConfiguration } };
  };
  const work = mkdtempSync(join(tmpdir(), 'ingresskit-rss-alloc-'));
  try {
    const objects = createClusterObjects(size, [8081, 8082, 8083, 8084], createCertificatePool(work, 20));
    const byKind = (kind: string) => objects.filter((object) => object.kind === kind);
    const cluster = {
      ingresses: byKind('Ingress'),
      ingressClasses: byKind('IngressClass'),
      services: byKind('Service'),
      endpointSlices: byKind('EndpointSlice'),
      secrets: byKind('Secret'),
      ingressCheckSums: [],
    };
    const certificateCache = template.createCertificateCache();
    const plan = () =>
      controllerDist.planSync(cluster, {
        classConfig: {},
        checksumEnabled: false,
        now: Date.now(),
        certificateCache,
      });
    const configuration = plan().build.configuration;
    const renderOptions = { httpPort: 8080, httpsPort: 8443, statusPort: 10999 };
    const conf = template.renderNginxConf(configuration, renderOptions);
    const steps: [string, () => unknown, string][] = [
      [
        'planSync: class resolution + explanations + buildConfiguration (warm certificate cache)',
        plan,
        'every sync',
      ],
      [
        'of which buildConfiguration (incl. its checksum: JSON.stringify + sha256 of the model)',
        () =>
          template.buildConfiguration(toConfigurationInput(objects), { now: Date.now(), certificateCache }),
        'every sync',
      ],
      [
        'JSON.stringify of the Configuration (what the checksum hashes, about)',
        () => JSON.stringify(configuration),
        'every sync',
      ],
      [
        'diffConfigurations(previous, next)',
        () => template.diffConfigurations(configuration, plan().build.configuration),
        'every sync (with a second plan)',
      ],
      ['backendsPayload', () => template.backendsPayload(configuration), 'every sync'],
      ['renderNginxConf', () => template.renderNginxConf(configuration, renderOptions), 'syncs that reload'],
      [
        'Buffer.from(nginx.conf) (writeFile of the candidate)',
        () => Buffer.from(conf),
        'syncs that reload (native, not V8 heap)',
      ],
    ];
    printSection(
      `rss-diagnosis: what one old-path sync allocates, ${formatNumber(size, 0)} Ingresses`,
      steps.map(([step, fn, when]) => ({
        step,
        when,
        'V8 heap allocated MiB (median of 5)': formatNumber(allocatedMiB(fn), 1),
      })),
      `nginx.conf: ${formatNumber(conf.length / MiB, 2)} MiB; the Configuration as JSON: ` +
        `${formatNumber(JSON.stringify(configuration).length / MiB, 2)} MiB.`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** What the controller's long-lived parts hold alone in one snapshot, by owner and class. */
function owners(file: string): void {
  const snapshot = readHeapSnapshot(file);
  const held = heldByOwners(snapshot, new Set(OWNER_CLASSES));
  const byOwner = new Map<string, number>();
  for (const entry of held) byOwner.set(entry.owner, (byOwner.get(entry.owner) ?? 0) + entry.bytes);
  const total = snapshot.selfSize.reduce((sum, size) => sum + size, 0);
  printSection(
    `held alone by each owner (of ${formatNumber(total / MiB, 1)} MiB in the snapshot)`,
    [...byOwner].map(([owner, bytes]) => ({ owner, MiB: formatNumber(bytes / MiB, 2) })),
  );
  printSection(
    'by owner and class of the objects held',
    held.slice(0, 30).map((entry) => ({
      owner: entry.owner,
      class: entry.className,
      count: entry.count,
      MiB: formatNumber(entry.bytes / MiB, 2),
    })),
  );
}

/** What the controller's parts hold, by object shape (or only `onlyOwner`'s, `shared` included). */
function shapes(file: string, onlyOwner: string | undefined): void {
  const snapshot = readHeapSnapshot(file);
  const held = heldByShape(snapshot, new Set(OWNER_CLASSES)).filter(
    (entry) => onlyOwner === undefined || entry.owner === onlyOwner,
  );
  printSection(
    `held by ${onlyOwner ?? 'each owner'}, by object shape (largest 60)`,
    held.slice(0, 60).map((entry) => ({
      owner: entry.owner,
      shape: `\`${entry.shape.replace(/\|/g, '/')}\``,
      count: entry.count,
      MiB: formatNumber(entry.bytes / MiB, 2),
    })),
  );
}

/** The controller's parts whose memory `owners` reports. */
const OWNER_CLASSES = ['IngressRouting', 'IncrementalRouteTable', 'StoreState', 'NginxDataPlane'];

const [mode, ...files] = process.argv.slice(2);
if (mode === 'run') await runScenario();
else if (mode === 'analyze' && files.length === 2) analyze(files[0]!, files[1]!);
else if (mode === 'owners' && files.length === 1) owners(files[0]!);
else if (mode === 'shapes' && (files.length === 1 || files.length === 2)) shapes(files[0]!, files[1]);
else if (mode === 'allocations') await measureAllocations();
else
  process.stderr.write(
    'usage: rss-diagnosis.ts run | analyze EARLY.heapsnapshot LATE.heapsnapshot | owners FILE.heapsnapshot | shapes FILE.heapsnapshot [OWNER] | allocations\n',
  );
