export type { Clock, Timer, WallClock } from '@ingresskit/task-queue';
export { addressesFromService, type StatusAddress } from './addresses.js';
export type { ControllerPod, CoreApi } from './controller-pods.js';
export {
  AddressResolutionError,
  InvalidStatusSyncOptionsError,
  LeaseRequestError,
  RequestTimeoutError,
  StatusWriteError,
} from './errors.js';
export { defaultLeaderElectionTiming } from './election-timing.js';
export {
  LeaderElector,
  type LeaderElectorEvents,
  type LeaderElectorOptions,
  type LeaderElectorStopResult,
  type StopLeaderElectorOptions,
  type StoppedLeadingReason,
} from './leader-elector.js';
export type { LeaseApi } from './lease-client.js';
export { formatMicroTime } from './micro-time.js';
export { resolveStatusAddresses, type StatusAddressOptions } from './resolve-status-addresses.js';
export {
  StatusSync,
  type StatusShutdownReason,
  type StatusShutdownResult,
  type StatusSyncEvents,
  type StatusSyncOptions,
  type StatusSyncResult,
} from './status-sync.js';
export type { IngressStatusApi, IngressWriteFailure, OwnedIngress } from './status-writer.js';
