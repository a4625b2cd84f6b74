/**
 * The controller's Prometheus metrics (prom-client), in a registry of their own so that several
 * controllers in one process (tests) do not share counters. Names start with `ingresskit_`; where
 * ingress-nginx has the same metric, the meaning is the same.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CONTROLLER_VERSION } from './version.js';

/** The metrics one controller updates. */
export interface ControllerMetrics {
  readonly registry: Registry;
  /** Syncs by result: `success`, `error`, `checksum-mismatch`. */
  readonly syncs: Counter<'result'>;
  readonly syncDuration: Histogram;
  /** nginx reloads by result: `success`, `failure` (a failed `nginx -t` counts as a failure). */
  readonly reloads: Counter<'result'>;
  /** 1 when the last reload worked, 0 when it failed (ingress-nginx's config_last_reload_successful). */
  readonly lastReloadSuccessful: Gauge;
  readonly lastReloadSuccessTimestamp: Gauge;
  /** Backends posted to the Lua endpoint without a reload, by result. */
  readonly dynamicUpdates: Counter<'result'>;
  /** A number derived from the running configuration hash (first 52 bits), like config_hash. */
  readonly configHash: Gauge;
  readonly ownedIngresses: Gauge;
  /** Ingresses this controller ignores, by class-resolution reason. */
  readonly ignoredIngresses: Gauge<'reason'>;
  /** Problems of the last build, by severity. */
  readonly problems: Gauge<'severity'>;
  /** 1 when the owned Ingresses match the newest IngressCheckSum (or none is published), else 0. */
  readonly checksumOk: Gauge;
  /** Checksum verifications by result: `match`, `mismatch`, `unchecked`. */
  readonly checksumChecks: Counter<'result'>;
  /** 1 while this replica leads. */
  readonly leader: Gauge<'name'>;
  /** nginx master processes that exited on their own and were started again. */
  readonly nginxRestarts: Counter;
  /** Times nginx's data was found lost or changed behind the controller, and pushed again. */
  readonly dataPlaneDrifts: Counter;
  /** Kubernetes Events written, by action: `created`, `updated`, `failed`. */
  readonly events: Counter<'action'>;
}

/** Creates the metrics in a new registry; `withProcessMetrics` adds Node's process metrics. */
export function createControllerMetrics(options: { withProcessMetrics?: boolean } = {}): ControllerMetrics {
  const registry = new Registry();
  if (options.withProcessMetrics) collectDefaultMetrics({ register: registry, prefix: 'ingresskit_' });
  const registers = [registry];
  // Which build runs, for dashboards that compare replicas during an upgrade.
  new Gauge({
    name: 'ingresskit_build_info',
    help: 'Always 1; the labels say which ingresskit and Node.js run.',
    labelNames: ['version', 'node_version'],
    registers,
  }).set({ version: CONTROLLER_VERSION, node_version: process.version }, 1);
  return {
    registry,
    syncs: new Counter({
      name: 'ingresskit_syncs_total',
      help: 'Configuration syncs by result.',
      labelNames: ['result'],
      registers,
    }),
    syncDuration: new Histogram({
      name: 'ingresskit_sync_duration_seconds',
      help: 'Time of one sync: class resolution, checksum, build, and nginx reload or dynamic update.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    reloads: new Counter({
      name: 'ingresskit_nginx_reloads_total',
      help: 'nginx reloads by result.',
      labelNames: ['result'],
      registers,
    }),
    lastReloadSuccessful: new Gauge({
      name: 'ingresskit_config_last_reload_successful',
      help: 'Whether the last reload (or nginx -t) succeeded.',
      registers,
    }),
    lastReloadSuccessTimestamp: new Gauge({
      name: 'ingresskit_config_last_reload_successful_timestamp_seconds',
      help: 'Unix time of the last successful reload.',
      registers,
    }),
    dynamicUpdates: new Counter({
      name: 'ingresskit_dynamic_updates_total',
      help: 'Backends posted to the nginx Lua endpoint, by result.',
      labelNames: ['result'],
      registers,
    }),
    configHash: new Gauge({
      name: 'ingresskit_config_hash',
      help: 'Hash of the running configuration.',
      registers,
    }),
    ownedIngresses: new Gauge({
      name: 'ingresskit_owned_ingresses',
      help: 'Ingresses this controller owns.',
      registers,
    }),
    ignoredIngresses: new Gauge({
      name: 'ingresskit_ignored_ingresses',
      help: 'Ingresses this controller ignores, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    problems: new Gauge({
      name: 'ingresskit_ingress_problems',
      help: 'Problems found in owned Ingresses by the last build, by severity.',
      labelNames: ['severity'],
      registers,
    }),
    checksumOk: new Gauge({
      name: 'ingresskit_ingress_checksum_ok',
      help: 'Whether the owned Ingresses match the newest IngressCheckSum.',
      registers,
    }),
    checksumChecks: new Counter({
      name: 'ingresskit_ingress_checksum_checks_total',
      help: 'IngressCheckSum verifications by result.',
      labelNames: ['result'],
      registers,
    }),
    leader: new Gauge({
      name: 'ingresskit_leader_election_status',
      help: 'Whether this replica is the leader (1) or not (0).',
      labelNames: ['name'],
      registers,
    }),
    nginxRestarts: new Counter({
      name: 'ingresskit_nginx_restarts_total',
      help: 'nginx master processes that exited unexpectedly and were restarted.',
      registers,
    }),
    dataPlaneDrifts: new Counter({
      name: 'ingresskit_data_plane_drifts_total',
      help: "Times nginx's data was found lost (a restart) or changed behind the controller, and pushed again in full.",
      registers,
    }),
    events: new Counter({
      name: 'ingresskit_kubernetes_events_total',
      help: 'Kubernetes Events written, by action.',
      labelNames: ['action'],
      registers,
    }),
  };
}

/** The gauge value for a SHA-256 hex checksum: its first 13 hex digits, exact in a float64. */
export function configHashToGaugeValue(checksum: string): number {
  const value = Number.parseInt(checksum.slice(0, 13), 16);
  return Number.isFinite(value) ? value : 0;
}

/** What a store holds of the Secrets it has seen (the store's `secretStats`). */
export interface HeldSecrets {
  readonly held: number;
  readonly heldDataChars: number;
  readonly notHeld: number;
}

/**
 * Registers the gauges of the Secrets the store holds, read from `read` at each scrape: held whole
 * (referenced or kept) or by key and version only, and the data the held ones hold.
 */
export function registerStoreSecretMetrics(registry: Registry, read: () => HeldSecrets): void {
  const registers = [registry];
  new Gauge({
    name: 'ingresskit_store_secrets',
    help: 'Secrets the store has seen: held whole (held="true", something references them) or by name and version only.',
    labelNames: ['held'],
    registers,
    collect() {
      const stats = read();
      this.set({ held: 'true' }, stats.held);
      this.set({ held: 'false' }, stats.notHeld);
    },
  });
  new Gauge({
    name: 'ingresskit_store_secret_data_bytes',
    help: 'Data of the Secrets the store holds whole, in bytes of their base64 values.',
    registers,
    collect() {
      this.set(read().heldDataChars);
    },
  });
}
