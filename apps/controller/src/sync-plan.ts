/**
 * One pass of the pipeline over a consistent set of objects, without I/O: class resolution for
 * every Ingress, the checksum verdict, and the Configuration built from the owned Ingresses.
 * The controller applies the result; `explain` and `render` print it.
 */
import { ingressConfigId, verifyChecksum, type ChecksumVerification } from '@ingresskit/checksum';
import {
  createIngressClassResolver,
  explainDecision,
  type ClassDecision,
  type ClassResolutionConfig,
} from '@ingresskit/class-resolution';
import {
  buildConfiguration,
  type BuildResult,
  type CertificateCache,
  type ServiceReference,
} from '@ingresskit/nginx-template';
import type { CustomObject, EndpointSlice, Ingress, IngressClass, Secret, Service } from '@ingresskit/store';

/** The objects one sync reads, as the store (plain JSON) or a manifest file gives them. */
export interface ClusterObjects {
  ingresses: readonly Ingress[];
  ingressClasses: readonly IngressClass[];
  services: readonly Service[];
  endpointSlices: readonly EndpointSlice[];
  secrets: readonly Secret[];
  ingressCheckSums: readonly CustomObject[];
}

/** Settings of a sync that come from the flags. */
export interface SyncPlanOptions {
  classConfig: Partial<ClassResolutionConfig>;
  /** Verify owned Ingresses against the newest IngressCheckSum (`--enable-ingress-checksum`). */
  checksumEnabled: boolean;
  defaultBackend?: ServiceReference | undefined;
  /** Current time (ms), to warn about expired certificates. */
  now: number;
  /**
   * Parsed certificates kept between syncs. Without it every sync, endpoint-only ones included,
   * parses and checks every TLS certificate again.
   */
  certificateCache?: CertificateCache | undefined;
}

/** Class resolution for one Ingress. */
export interface IngressVerdict {
  /** `namespace/name`. */
  key: string;
  ingress: Ingress;
  decision: ClassDecision;
  /** The decision in plain words, naming the Ingress. */
  explanation: string;
}

/** The checksum gate's view of one sync. */
export interface ChecksumVerdict extends ChecksumVerification {
  /** Ids of the owned Ingresses that take part, sorted. */
  ids: string[];
  /** Owned Ingresses that do not take part, and why. */
  skipped: { key: string; message: string }[];
}

/** Everything one sync decided. */
export interface SyncPlan {
  verdicts: ReadonlyMap<string, IngressVerdict>;
  owned: IngressVerdict[];
  ignored: IngressVerdict[];
  /** Undefined when the gate is off. */
  checksum: ChecksumVerdict | undefined;
  /** The configuration of the owned Ingresses and what could not be served as written. */
  build: BuildResult;
}

/** Runs class resolution, the checksum verification and buildConfiguration over `objects`. */
export function planSync(objects: ClusterObjects, options: SyncPlanOptions): SyncPlan {
  const resolver = createIngressClassResolver(objects.ingressClasses, options.classConfig);
  const verdicts = new Map<string, IngressVerdict>();
  const owned: IngressVerdict[] = [];
  const ignored: IngressVerdict[] = [];
  for (const ingress of objects.ingresses) {
    const key = `${ingress.metadata.namespace ?? ''}/${ingress.metadata.name}`;
    const decision = resolver.resolve(ingress);
    const verdict: IngressVerdict = {
      key,
      ingress,
      decision,
      explanation: explainDecision(ingress, decision),
    };
    verdicts.set(key, verdict);
    (decision.owned ? owned : ignored).push(verdict);
  }
  const build = buildConfiguration(
    {
      ingresses: owned.map((verdict) => verdict.ingress),
      services: objects.services,
      endpointSlices: objects.endpointSlices,
      secrets: objects.secrets,
      ...(options.defaultBackend === undefined ? {} : { defaultBackend: options.defaultBackend }),
    },
    { now: options.now, ...(options.certificateCache ? { certificateCache: options.certificateCache } : {}) },
  );
  return {
    verdicts,
    owned,
    ignored,
    checksum: options.checksumEnabled ? verifyOwned(owned, objects.ingressCheckSums) : undefined,
    build,
  };
}

function verifyOwned(
  owned: readonly IngressVerdict[],
  checksumObjects: readonly CustomObject[],
): ChecksumVerdict {
  const ids: string[] = [];
  const skipped: { key: string; message: string }[] = [];
  for (const verdict of owned) {
    const result = ingressConfigId(verdict.ingress);
    if (result.id === undefined) skipped.push({ key: verdict.key, message: result.message });
    else ids.push(result.id);
  }
  ids.sort();
  return { ...verifyChecksum(ids, checksumObjects), ids, skipped };
}

/**
 * Parses `--default-backend-service`: `NAMESPACE/NAME` (port 80) or `NAMESPACE/NAME:PORT` (number
 * or name); undefined for an empty value or one that does not have this shape.
 */
export function parseServiceReference(value: string): ServiceReference | undefined {
  const match = /^([a-z0-9-]+)\/([a-z0-9.-]+)(?::([A-Za-z0-9-]+))?$/.exec(value.trim());
  if (!match) return undefined;
  const port = match[3] === undefined ? 80 : /^\d+$/.test(match[3]) ? Number(match[3]) : match[3];
  return { namespace: match[1]!, name: match[2]!, port };
}
