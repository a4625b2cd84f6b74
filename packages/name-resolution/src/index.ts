export {
  ExternalNames,
  externalNameKey,
  type ExternalNamesOptions,
  type NameLogger,
} from './external-names.js';
export {
  createSystemLookup,
  listSearchNames,
  type LookupName,
  type SystemLookupConfig,
} from './system-lookup.js';
export { FairQueue, type FairQueueOptions } from './fair-queue.js';
export { parseHostsFile, readHostsFile, type HostsFile } from './hosts-file.js';
export {
  parseNameservers,
  parseResolvConf,
  readResolvConf,
  readSystemNameservers,
  type ResolvConf,
} from './resolv-conf.js';
export { NameNotFoundError } from './errors.js';
// The routing stage pins backends to this; ingress-routes declares it, where it is consumed.
export type { NameResolution } from '@ingresskit/ingress-routes';
