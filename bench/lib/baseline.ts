/**
 * The two controllers the system scenarios measure side by side: `baseline`, the old data plane
 * (commit {@link BASELINE_COMMIT}: every Ingress change re-renders nginx.conf, `nginx -t`, reload;
 * endpoints go to a Lua balancer), built in a git worktree under bench/.out/baseline; and
 * `current`, the working tree's apps/controller (routes pushed to Lua as data, no reload). Both are
 * driven through the same `ingresskit run` command line.
 *
 * `pnpm exec tsx bench/lib/baseline.ts` prepares the baseline on its own (worktree, install, build);
 * `bench/run.ts` does it before the system scenarios.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The commit of the old data plane. */
export const BASELINE_COMMIT = 'ac9a183';

/** Which controller: the old data plane or the working tree's. */
export type Side = 'baseline' | 'current';

/** Both sides, baseline first (the order of every table). */
export const SIDES: readonly Side[] = ['baseline', 'current'];

/** The repository root (the working tree). */
export const repoRoot = join(import.meta.dirname, '..', '..');

/** Where the baseline worktree lives (bench/.out is gitignored). */
export const baselineRoot = join(repoRoot, 'bench', '.out', 'baseline');

const stampFile = join(baselineRoot, '.bench-built');

/** A side's label in tables: `old (ac9a183)` / `new`. */
export function sideLabel(side: Side): string {
  return side === 'baseline' ? `old (${BASELINE_COMMIT})` : 'new';
}

/** The repository a side's controller is built in. */
export function rootOf(side: Side): string {
  return side === 'baseline' ? baselineRoot : repoRoot;
}

/**
 * The sides to run: BENCH_SIDES (comma-separated `baseline`, `current`), both by default.
 * `bench/run.ts` narrows it to the sides that built before it starts the scenarios.
 */
export function readSides(): Side[] {
  const raw = process.env.BENCH_SIDES;
  if (raw === undefined || raw.trim() === '') return [...SIDES];
  const wanted = raw.split(',').map((side) => side.trim());
  for (const side of wanted)
    if (side !== '' && !SIDES.includes(side as Side))
      throw new Error(`BENCH_SIDES: unknown side ${side} (use baseline, current)`);
  return SIDES.filter((side) => wanted.includes(side));
}

/** The outcome of preparing one side. */
export type PreparedSide =
  { side: Side; ok: true; note?: string } | { side: Side; ok: false; reason: string };

function run(command: string, args: string[], cwd: string): { ok: boolean; output: string } {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

function tail(text: string, lines = 15): string {
  return text.split('\n').slice(-lines).join('\n');
}

/** The full hash of {@link BASELINE_COMMIT}. */
export function baselineCommitHash(): string {
  const parsed = run('git', ['rev-parse', '--verify', `${BASELINE_COMMIT}^{commit}`], repoRoot);
  if (!parsed.ok) throw new Error(`git cannot find commit ${BASELINE_COMMIT}: ${parsed.output}`);
  return parsed.output;
}

/** Whether the baseline is built for {@link BASELINE_COMMIT} (the worktree and its dist are there). */
export function isBaselineBuilt(hash = baselineCommitHash()): boolean {
  if (!existsSync(join(baselineRoot, 'apps/controller/dist/cli.js')) || !existsSync(stampFile)) return false;
  const head = run('git', ['rev-parse', 'HEAD'], baselineRoot);
  return head.ok && head.output === hash && readFileSync(stampFile, 'utf8').trim() === hash;
}

/**
 * Makes bench/.out/baseline a built worktree of {@link BASELINE_COMMIT}: `git worktree add`,
 * `pnpm install --frozen-lockfile --prefer-offline`, `pnpm --filter @ingresskit/controller... build`.
 * Reused as it is when already built for that commit. Never throws: a failure is the result.
 */
export function prepareBaseline(log: (line: string) => void = () => undefined): PreparedSide {
  try {
    const hash = baselineCommitHash();
    if (isBaselineBuilt(hash)) return { side: 'baseline', ok: true, note: 'reused' };
    const isWorktree = run('git', ['rev-parse', '--show-toplevel'], baselineRoot);
    if (isWorktree.ok && isWorktree.output === baselineRoot) {
      log(`bench: checking out ${BASELINE_COMMIT} in ${baselineRoot}`);
      const checkout = run('git', ['checkout', '--detach', '--force', hash], baselineRoot);
      if (!checkout.ok) return { side: 'baseline', ok: false, reason: tail(checkout.output) };
    } else {
      // A leftover directory that git no longer knows as a worktree.
      rmSync(baselineRoot, { recursive: true, force: true });
      run('git', ['worktree', 'prune'], repoRoot);
      log(`bench: git worktree add ${baselineRoot} ${BASELINE_COMMIT}`);
      const add = run('git', ['worktree', 'add', '--detach', baselineRoot, hash], repoRoot);
      if (!add.ok) return { side: 'baseline', ok: false, reason: tail(add.output) };
    }
    rmSync(stampFile, { force: true });
    log('bench: pnpm install in the baseline worktree');
    const install = run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], baselineRoot);
    if (!install.ok) return { side: 'baseline', ok: false, reason: tail(install.output) };
    log('bench: building the baseline controller');
    const build = run('pnpm', ['--filter', '@ingresskit/controller...', 'build'], baselineRoot);
    if (!build.ok) return { side: 'baseline', ok: false, reason: tail(build.output) };
    writeFileSync(stampFile, `${hash}\n`);
    return { side: 'baseline', ok: true };
  } catch (error) {
    return { side: 'baseline', ok: false, reason: String(error) };
  }
}

/** Builds the working tree's controller and the packages it uses. Never throws. */
export function buildCurrent(): PreparedSide {
  const build = run('pnpm', ['--filter', '@ingresskit/controller...', 'build'], repoRoot);
  return build.ok
    ? { side: 'current', ok: true }
    : { side: 'current', ok: false, reason: tail(build.output, 40) };
}

/**
 * What the old nginx-template exports that the in-run floors use, loaded from the baseline's
 * build: the floors describe the old path, and the working tree's package is being rewritten.
 */
export interface BaselineTemplate {
  buildConfiguration: (
    input: Record<string, unknown>,
    options?: { now?: number; certificateCache?: unknown },
  ) => { configuration: BaselineConfiguration; problems: unknown[] };
  renderNginxConf: (configuration: BaselineConfiguration, options?: Record<string, unknown>) => string;
  diffConfigurations: (
    previous: BaselineConfiguration | undefined,
    next: BaselineConfiguration,
  ) => { reloadRequired: boolean; reasons: string[] };
  backendsPayload: (configuration: BaselineConfiguration) => string;
  createCertificateCache: () => unknown;
  luaFiles: readonly { path: string; relativePath: string }[];
  BACKENDS_ENDPOINT_PATH: string;
}

/** The old Configuration model, as far as the floors read it. */
export interface BaselineConfiguration {
  checksum: string;
  certificates: readonly { fileName: string; pem: string }[];
}

/** Imports the baseline's built @ingresskit/nginx-template (prepares the baseline if needed). */
export async function importBaselineTemplate(): Promise<BaselineTemplate> {
  if (!isBaselineBuilt()) {
    const prepared = prepareBaseline((line) => process.stderr.write(`${line}\n`));
    if (!prepared.ok) throw new Error(`the baseline did not build:\n${prepared.reason}`);
  }
  const entry = join(baselineRoot, 'packages/nginx-template/dist/index.js');
  return (await import(pathToFileURL(entry).href)) as BaselineTemplate;
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const prepared = prepareBaseline((line) => process.stderr.write(`${line}\n`));
  process.stderr.write(
    prepared.ok
      ? `baseline ready in ${baselineRoot}${prepared.note ? ` (${prepared.note})` : ''}\n`
      : `baseline failed:\n${prepared.reason}\n`,
  );
  process.exitCode = prepared.ok ? 0 : 1;
}
