/** The addresses to publish, from the configured source, in ingress-nginx's order of precedence. */
import {
  addressesFromService,
  nodeAddress,
  normalizeAddresses,
  parsePublishStatusAddress,
  type StatusAddress,
} from './addresses.js';
import { statusCodeOf } from './api-errors.js';
import {
  isServingPod,
  listControllerPods,
  readNodeIfExists,
  type ControllerPod,
  type CoreApi,
} from './controller-pods.js';
import { AddressResolutionError } from './errors.js';

/** Where the published addresses come from; the first source that is set wins, in field order. */
export interface StatusAddressOptions {
  /** ingress-nginx's `--publish-status-address`: fixed IPs/hostnames, comma separated or a list. */
  publishStatusAddress?: string | readonly string[];
  /** ingress-nginx's `--publish-service`: `namespace/name` (or `name` in the controller's namespace). */
  publishService?: string;
  /** The controller's own pod: without a publish option, the nodes of its Running and Ready replicas. */
  controllerPod?: ControllerPod;
  /** With node addresses, prefer each node's InternalIP over its ExternalIP. */
  reportNodeInternalIp?: boolean;
}

/**
 * The addresses to publish, sorted and de-duplicated, by precedence: `publishStatusAddress`, then the
 * `publishService` Service (see addressesFromService), then the addresses of the nodes that run
 * Running and Ready replicas of the controller (ExternalIP, else InternalIP; InternalIP first with
 * `reportNodeInternalIp`). Rejects with AddressResolutionError when the source cannot be read (a
 * missing publish Service included) or none is configured.
 */
export async function resolveStatusAddresses(
  options: StatusAddressOptions,
  client: CoreApi,
): Promise<StatusAddress[]> {
  if (options.publishStatusAddress !== undefined) {
    const fixed = parsePublishStatusAddress(options.publishStatusAddress);
    if (fixed.length > 0) return fixed;
  }
  if (options.publishService !== undefined && options.publishService !== '') {
    const { namespace, name } = parseServiceRef(options.publishService, options.controllerPod?.namespace);
    try {
      return addressesFromService(await client.readNamespacedService({ name, namespace }));
    } catch (error) {
      const reason = statusCodeOf(error) === 404 ? 'does not exist' : 'could not be read';
      throw new AddressResolutionError(`publish service ${namespace}/${name} ${reason}`, { cause: error });
    }
  }
  if (options.controllerPod !== undefined) {
    return resolveNodeAddresses(options.controllerPod, options.reportNodeInternalIp ?? false, client);
  }
  throw new AddressResolutionError(
    'no address source: set publishStatusAddress, publishService or controllerPod',
  );
}

async function resolveNodeAddresses(
  pod: ControllerPod,
  preferInternalIp: boolean,
  client: CoreApi,
): Promise<StatusAddress[]> {
  const pods = await listControllerPods(pod, client);
  const nodeNames = new Set<string>();
  for (const replica of pods) {
    const nodeName = replica.spec?.nodeName;
    if (isServingPod(replica) && nodeName !== undefined && nodeName !== '') nodeNames.add(nodeName);
  }
  const nodes = await Promise.all([...nodeNames].sort().map((name) => readNodeIfExists(name, client)));
  return normalizeAddresses(
    nodes.flatMap((node) => {
      const address = node === undefined ? undefined : nodeAddress(node, preferInternalIp);
      return address === undefined ? [] : [address];
    }),
  );
}

function parseServiceRef(
  ref: string,
  defaultNamespace: string | undefined,
): { namespace: string; name: string } {
  const parts = ref.split('/');
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '')
    return { namespace: parts[0]!, name: parts[1]! };
  if (parts.length === 1 && defaultNamespace !== undefined) return { namespace: defaultNamespace, name: ref };
  throw new AddressResolutionError(`publish service must be "namespace/name", got "${ref}"`);
}
