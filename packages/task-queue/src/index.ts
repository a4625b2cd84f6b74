export { computeBackoffDelay, type BackoffPolicy } from './backoff.js';
export {
  createFakeClock,
  systemClock,
  systemWallClock,
  type Clock,
  type FakeClock,
  type FakeClockOptions,
  type Timer,
  type WallClock,
} from './clock.js';
export {
  InvalidOptionError,
  InvalidSyncResultError,
  ListenerError,
  SyncQueueShutDownError,
  TimerLoopError,
} from './errors.js';
export { callGuarded } from './listener-guard.js';
// The project's one object key, re-exported: SyncQueue keys objects with it.
export { objectKey, splitObjectKey, type ObjectWithMetadata } from '@ingresskit/kube-objects';
export {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  exponentialFailureRateLimiter,
  maxOfRateLimiter,
  type BucketOptions,
  type DefaultControllerRateLimiterOptions,
  type ExponentialFailureOptions,
  type RateLimiter,
} from './rate-limiters.js';
export { RateLimitingQueue, type RateLimitingQueueOptions } from './rate-limiting-queue.js';
export {
  SyncQueue,
  type EnqueueOptions,
  type SyncFailure,
  type SyncFunction,
  type SyncOutcome,
  type SyncQueueEvents,
  type SyncQueueOptions,
  type SyncQueueShutDownOptions,
  type SyncRequeue,
  type SyncSkip,
  type SyncTask,
} from './sync-queue.js';
export type { SyncResult } from './sync-result.js';
export { WorkQueue, type GetOptions, type GetResult } from './work-queue.js';
