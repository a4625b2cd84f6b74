/**
 * The API defaulting and allocation a client sees on a real cluster for the built-ins that
 * controllers read most: Service (type, ports, cluster IP, node ports), Secret (type, stringData),
 * Namespace (the metadata.name label, finalizer, phase) and Pod (phase), so code that relies on
 * these fields works here as it does against a real cluster.
 */
import { isPlainObject, type JsonObject, type KubeObject } from './objects.js';

/** Hooks that fill server-set fields; they mutate the object being stored, never the previous one. */
export interface DefaultingHooks {
  prepareCreate(object: KubeObject): void;
  prepareUpdate(object: KubeObject, previous: KubeObject): void;
}

/** Sets the `kubernetes.io/metadata.name` label every Namespace carries. */
export function defaultNamespace(object: KubeObject): void {
  const name = object.metadata.name;
  if (name)
    object.metadata = {
      ...object.metadata,
      labels: { ...object.metadata.labels, 'kubernetes.io/metadata.name': name },
    };
}

/** Namespace create: adds the `kubernetes` finalizer once, sets phase Active and the name label. */
export function prepareNamespaceCreate(object: KubeObject): void {
  const spec = isPlainObject(object.spec) ? object.spec : {};
  const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
  object.spec = {
    ...spec,
    finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'],
  };
  object.status = { phase: 'Active' };
  defaultNamespace(object);
}

/** Pod create: the status starts as phase Pending, whatever the client sent (nothing schedules it). */
export function preparePodCreate(object: KubeObject): void {
  object.status = { phase: 'Pending' };
}

/** Defaults `type: Opaque` and folds write-only `stringData` into base64 `data`. */
export function defaultSecret(object: KubeObject): void {
  if (object.type === undefined || object.type === '') object.type = 'Opaque';
  if (!isPlainObject(object.stringData)) return;
  const data: JsonObject = isPlainObject(object.data) ? { ...object.data } : {};
  for (const [key, value] of Object.entries(object.stringData)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  object.data = data;
  delete object.stringData;
}

/**
 * Service defaulting with a cluster-IP allocator (10.96.0.0/12, handed out in order) and a
 * node-port allocator (30000–32767). Allocated values survive updates that leave them out.
 */
export function createServiceDefaults(): DefaultingHooks {
  let nextIp = 1;
  let nextNodePort = 30000;
  const allocateIp = (): string => {
    const offset = nextIp++;
    return `10.${96 + ((offset >> 16) & 0x0f)}.${(offset >> 8) & 0xff}.${offset & 0xff}`;
  };
  const allocateNodePort = (): number => {
    const port = nextNodePort;
    nextNodePort = nextNodePort >= 32767 ? 30000 : nextNodePort + 1;
    return port;
  };
  const apply = (object: KubeObject, previous: KubeObject | undefined): void => {
    const spec: JsonObject = isPlainObject(object.spec) ? { ...object.spec } : {};
    const before: JsonObject = previous && isPlainObject(previous.spec) ? previous.spec : {};
    const type = typeof spec.type === 'string' && spec.type !== '' ? spec.type : 'ClusterIP';
    spec.type = type;
    if (type === 'ExternalName') {
      object.spec = spec;
      return;
    }
    spec.sessionAffinity ??= 'None';
    spec.internalTrafficPolicy ??= 'Cluster';
    if (spec.clusterIP === undefined || spec.clusterIP === '') {
      spec.clusterIP =
        typeof before.clusterIP === 'string' && before.clusterIP !== '' ? before.clusterIP : allocateIp();
    }
    spec.clusterIPs = spec.clusterIP === 'None' ? ['None'] : [spec.clusterIP];
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
    const needsNodePorts = type === 'NodePort' || type === 'LoadBalancer';
    if (needsNodePorts) {
      spec.externalTrafficPolicy ??= 'Cluster';
      if (type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
    }
    const oldPorts = Array.isArray(before.ports) ? before.ports.filter(isPlainObject) : [];
    if (Array.isArray(spec.ports)) {
      spec.ports = spec.ports.map((raw: unknown) => {
        if (!isPlainObject(raw)) return raw;
        const port: JsonObject = { ...raw };
        port.protocol ??= 'TCP';
        port.targetPort ??= port.port;
        if (needsNodePorts && (port.nodePort === undefined || port.nodePort === 0)) {
          const kept = oldPorts.find(
            (old) => old.port === port.port && (old.protocol ?? 'TCP') === port.protocol,
          );
          port.nodePort = typeof kept?.nodePort === 'number' ? kept.nodePort : allocateNodePort();
        }
        return port;
      });
    }
    object.spec = spec;
  };
  return {
    prepareCreate: (object) => apply(object, undefined),
    prepareUpdate: (object, previous) => apply(object, previous),
  };
}
