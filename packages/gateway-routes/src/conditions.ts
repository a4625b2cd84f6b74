/**
 * Condition types and reasons, as the Gateway API v1 spec names them, and the constructors of the
 * conditions this package writes. Conditions carry no time: whoever writes the status stamps
 * `lastTransitionTime` (keeping the old one when the status did not change).
 */
import type { ConditionDraft, GatewayStatusDraft } from './types.js';

/** Condition types of Gateways, listeners and routes. */
export const ConditionType = {
  Accepted: 'Accepted',
  Programmed: 'Programmed',
  ResolvedRefs: 'ResolvedRefs',
  Conflicted: 'Conflicted',
  PartiallyInvalid: 'PartiallyInvalid',
} as const;

/** Reasons of a Gateway's conditions. */
export const GatewayReason = {
  Accepted: 'Accepted',
  ListenersNotValid: 'ListenersNotValid',
  InvalidParameters: 'InvalidParameters',
  Programmed: 'Programmed',
  Invalid: 'Invalid',
  Pending: 'Pending',
  NoResources: 'NoResources',
  AddressNotAssigned: 'AddressNotAssigned',
} as const;

/** Reasons of a listener's conditions. */
export const ListenerReason = {
  Accepted: 'Accepted',
  PortUnavailable: 'PortUnavailable',
  UnsupportedProtocol: 'UnsupportedProtocol',
  UnsupportedValue: 'UnsupportedValue',
  HostnameConflict: 'HostnameConflict',
  ProtocolConflict: 'ProtocolConflict',
  NoConflicts: 'NoConflicts',
  ResolvedRefs: 'ResolvedRefs',
  InvalidCertificateRef: 'InvalidCertificateRef',
  InvalidRouteKinds: 'InvalidRouteKinds',
  RefNotPermitted: 'RefNotPermitted',
  Programmed: 'Programmed',
  Invalid: 'Invalid',
  Pending: 'Pending',
} as const;

/** Reasons of a route's parent conditions. */
export const RouteReason = {
  Accepted: 'Accepted',
  NotAllowedByListeners: 'NotAllowedByListeners',
  NoMatchingListenerHostname: 'NoMatchingListenerHostname',
  NoMatchingParent: 'NoMatchingParent',
  UnsupportedValue: 'UnsupportedValue',
  ResolvedRefs: 'ResolvedRefs',
  RefNotPermitted: 'RefNotPermitted',
  InvalidKind: 'InvalidKind',
  BackendNotFound: 'BackendNotFound',
} as const;

/** A condition with `observedGeneration` when the object has a generation. */
export function createCondition(
  type: string,
  status: boolean,
  reason: string,
  message: string,
  generation: number | undefined,
): ConditionDraft {
  const condition: ConditionDraft = { type, status: status ? 'True' : 'False', reason, message };
  if (generation !== undefined) condition.observedGeneration = generation;
  return condition;
}

/** What the data plane made of a Gateway: served, or not and why. */
export type ProgrammedOutcome =
  | { programmed: true; message?: string }
  | {
      programmed: false;
      /** `Pending` (not yet), `NoResources`, `AddressNotAssigned` or `Invalid`. */
      reason: string;
      message: string;
    };

function replaceProgrammed(
  conditions: readonly ConditionDraft[],
  outcome: ProgrammedOutcome,
): ConditionDraft[] {
  return conditions.map((condition) => {
    // Only a Programmed condition that waits for the data plane is decided by it; one that is
    // False for the Gateway's own faults (Invalid) stays.
    if (condition.type !== ConditionType.Programmed || condition.reason !== GatewayReason.Pending) {
      return condition;
    }
    const decided: ConditionDraft = outcome.programmed
      ? {
          ...condition,
          status: 'True',
          reason: GatewayReason.Programmed,
          message: outcome.message ?? 'served by the data plane',
        }
      : { ...condition, status: 'False', reason: outcome.reason, message: outcome.message };
    return decided;
  });
}

/**
 * A Gateway status with the data plane's verdict: the Gateway's and its valid listeners' Programmed
 * conditions, `Pending` as translated, become True (`Programmed`) or False with the outcome's reason.
 * Listeners that are invalid keep Programmed False (`Invalid`). Returns a new status.
 */
export function markGatewayProgrammed(
  status: GatewayStatusDraft,
  outcome: ProgrammedOutcome,
): GatewayStatusDraft {
  return {
    conditions: replaceProgrammed(status.conditions, outcome),
    listeners: status.listeners.map((listener) => ({
      ...listener,
      conditions: replaceProgrammed(listener.conditions, outcome),
    })),
  };
}
