/** The GatewayClass conditions this package writes, and whether a view is older than them. */
import type { Condition } from './types.js';

/** Condition types this package owns on a GatewayClass. */
export const GatewayClassConditionType = {
  Accepted: 'Accepted',
  SupportedVersion: 'SupportedVersion',
} as const;

/** Reasons this package writes, plus `Pending`, the API server's default before any controller decides. */
export const GatewayClassReason = {
  Accepted: 'Accepted',
  InvalidParameters: 'InvalidParameters',
  UnsupportedVersion: 'UnsupportedVersion',
  SupportedVersion: 'SupportedVersion',
  Pending: 'Pending',
} as const;

/** True when some condition of `types` records a generation newer than `generation` (the view is stale). */
export function hasNewerConditions(
  conditions: readonly Condition[] | undefined,
  types: readonly string[],
  generation: number,
): boolean {
  return (conditions ?? []).some(
    (condition) => types.includes(condition.type) && (condition.observedGeneration ?? 0) > generation,
  );
}
