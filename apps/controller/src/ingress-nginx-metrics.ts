/**
 * The controller metrics of ingress-nginx under its own names and labels, for the alerts its
 * users have (`nginx_ingress_controller_config_last_reload_successful == 0`, certificates that
 * expire within days): each is read, when scraped, from the controller's own `ingresskit_`
 * metric or from the certificates being served, so nothing is counted twice.
 */
import { X509Certificate } from 'node:crypto';
import { tlsSecretNameOf, type IngressLike } from '@ingresskit/ingress-routes';
import type { ControllerLabels } from '@ingresskit/nginx-template';
import type { RouteTable } from '@ingresskit/route-model';
import { Gauge, type Registry } from 'prom-client';
import { namespacedKey } from '@ingresskit/kube-objects';
import type { ControllerMetrics } from './metrics.js';
import { CONTROLLER_VERSION } from './version.js';

/** What the certificate expiry metric reads. */
export interface CertificateSource {
  /** The routes being served: TLS bindings and their certificates. */
  table(): RouteTable;
  /** An Ingress by `namespace/name`, for the Secret its TLS entry names. */
  ingress(key: string): IngressLike | undefined;
}

/** The value of a label-less metric of ours (0 when it has none yet). */
async function valueOf(metric: { get(): Promise<{ values: { value: number }[] }> }): Promise<number> {
  return (await metric.get()).values[0]?.value ?? 0;
}

/**
 * ingress-nginx's certificate identifier: the issuer's serialNumber attribute and the
 * certificate's serial number in decimal, joined by `-`.
 */
export function certificateIdentifier(certificate: X509Certificate): string {
  const issuerSerial = /^serialNumber=(.*)$/m.exec(certificate.issuer)?.[1] ?? '';
  return `${issuerSerial}-${BigInt(`0x${certificate.serialNumber}`).toString()}`;
}

/** Registers the metrics in `registry`, reading `ours` and `certificates`. */
export function registerIngressNginxMetrics(
  registry: Registry,
  ours: ControllerMetrics,
  controller: ControllerLabels,
  certificates: CertificateSource,
): void {
  const registers = [registry];
  const labelNames = Object.keys(controller) as (keyof ControllerLabels)[];
  const mirror = (name: string, help: string, read: () => Promise<number>) =>
    new Gauge({
      name: `nginx_ingress_controller_${name}`,
      help,
      labelNames,
      registers,
      async collect() {
        this.set(controller, await read());
      },
    });
  new Gauge({
    name: 'nginx_ingress_controller_build_info',
    help: "A metric with a constant '1' labeled with information about the build.",
    labelNames: [...labelNames, 'release', 'build', 'repository'],
    registers,
  }).set({ ...controller, release: CONTROLLER_VERSION, build: 'ingresskit', repository: 'ingresskit' }, 1);
  mirror('config_hash', 'Running configuration hash actually running', () => valueOf(ours.configHash));
  mirror(
    'config_last_reload_successful',
    'Whether the last configuration reload attempt was successful',
    () => valueOf(ours.lastReloadSuccessful),
  );
  mirror(
    'config_last_reload_successful_timestamp_seconds',
    'Timestamp of the last successful configuration reload.',
    () => valueOf(ours.lastReloadSuccessTimestamp),
  );
  const reloadsOf = async (result: string) =>
    (await ours.reloads.get()).values.find((value) => value.labels.result === result)?.value ?? 0;
  // Counters in ingress-nginx; gauges here, as they mirror counters of ours (same values, same rate()).
  mirror('success', 'Cumulative number of Ingress controller reload operations', () => reloadsOf('success'));
  mirror('errors', 'Cumulative number of Ingress controller errors during reload operations', () =>
    reloadsOf('failure'),
  );
  new Gauge({
    name: 'nginx_ingress_controller_leader_election_status',
    help: "Gauge reporting status of the leader election, 0 indicates follower, 1 indicates leader. 'name' is the string used to identify the lease",
    labelNames: [...labelNames, 'name'],
    registers,
    async collect() {
      this.reset();
      for (const { labels, value } of (await ours.leader.get()).values)
        this.set({ ...controller, name: String(labels.name) }, value);
    },
  });
  // Only the identifier needs the certificate parsed: once per certificate while it is served.
  const identifiers = new Map<string, string | undefined>();
  new Gauge({
    name: 'nginx_ingress_controller_ssl_expire_time_seconds',
    help: 'Number of seconds since 1970 to the SSL Certificate expire. An example to check if this certificate will expire in 10 days is: "nginx_ingress_controller_ssl_expire_time_seconds < (time() + (10 * 24 * 3600))"',
    labelNames: ['namespace', 'class', 'host', 'secret_name', 'identifier'],
    registers,
    collect() {
      this.reset();
      const table = certificates.table();
      const byId = new Map(table.certificates.map((certificate) => [certificate.id, certificate]));
      const seen = new Set<string>();
      for (const binding of table.tls) {
        const certificate = byId.get(binding.certificate);
        const notAfter = certificate?.notAfter === undefined ? Number.NaN : Date.parse(certificate.notAfter);
        if (certificate === undefined || Number.isNaN(notAfter) || binding.hostname === '*') continue;
        seen.add(certificate.id);
        if (!identifiers.has(certificate.id))
          identifiers.set(certificate.id, identifierOf(certificate.certificatePem));
        const { origin } = binding;
        this.set(
          {
            namespace: controller.controller_namespace,
            class: controller.controller_class,
            host: binding.hostname,
            secret_name:
              tlsSecretNameOf(certificates.ingress(namespacedKey(origin.namespace, origin.name)), origin) ??
              '',
            identifier: identifiers.get(certificate.id) ?? '',
          },
          Math.floor(notAfter / 1000),
        );
      }
      // Certificates no longer served are forgotten, so the cache cannot grow without end.
      for (const id of identifiers.keys()) if (!seen.has(id)) identifiers.delete(id);
    },
  });
}

function identifierOf(pem: string): string | undefined {
  try {
    return certificateIdentifier(new X509Certificate(pem));
  } catch {
    return undefined;
  }
}
