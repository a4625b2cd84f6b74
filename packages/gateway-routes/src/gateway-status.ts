/**
 * An evaluated Gateway → its status: the Gateway's and each listener's conditions, with Programmed
 * left Pending for what can be served until the data plane has taken it.
 */
import { ConditionType, createCondition, GatewayReason, ListenerReason } from './conditions.js';
import type { EvaluatedGateway } from './gateways.js';
import type { ConditionDraft, GatewayStatusDraft, ListenerStatusDraft } from './types.js';

/** The Gateway's Accepted condition: refused parameters, else whether its listeners are valid. */
function gatewayAccepted(gateway: EvaluatedGateway): ConditionDraft {
  const generation = gateway.generation;
  if (gateway.invalidParameters !== undefined) {
    return createCondition(
      ConditionType.Accepted,
      false,
      GatewayReason.InvalidParameters,
      gateway.invalidParameters,
      generation,
    );
  }
  const ready = gateway.listeners.filter((listener) => listener.isReady);
  const invalid = gateway.listeners.filter((listener) => !listener.isReady);
  if (invalid.length === 0 && ready.length > 0) {
    return createCondition(
      ConditionType.Accepted,
      true,
      GatewayReason.Accepted,
      'the Gateway is valid',
      generation,
    );
  }
  const message =
    invalid.length === 0
      ? 'the Gateway has no listeners'
      : `${ready.length > 0 ? `listeners ${ready.map((l) => l.name).join(', ')} are accepted; ` : 'no listener is valid; '}` +
        `not valid: ${invalid.map((l) => `${l.name} (${l.notReadyMessage ?? 'invalid'})`).join('; ')}`;
  return createCondition(
    ConditionType.Accepted,
    ready.length > 0,
    GatewayReason.ListenersNotValid,
    message,
    generation,
  );
}

/**
 * The status of an evaluated Gateway, given how many routes attached to each listener (by listener
 * name). Programmed is `Pending` for what can be served: markGatewayProgrammed settles it.
 */
export function buildGatewayStatus(
  gateway: EvaluatedGateway,
  attachedRoutes: ReadonlyMap<string, number>,
): GatewayStatusDraft {
  const generation = gateway.generation;
  const listeners: ListenerStatusDraft[] = gateway.listeners.map((listener) => ({
    name: listener.name,
    supportedKinds: listener.supportedKinds,
    attachedRoutes: attachedRoutes.get(listener.name) ?? 0,
    conditions: [
      listener.accepted,
      listener.conflicted ??
        createCondition(
          ConditionType.Conflicted,
          false,
          ListenerReason.NoConflicts,
          'no conflicts',
          generation,
        ),
      listener.resolvedRefs,
      listener.isReady
        ? createCondition(
            ConditionType.Programmed,
            false,
            ListenerReason.Pending,
            'waiting for the data plane',
            generation,
          )
        : createCondition(
            ConditionType.Programmed,
            false,
            ListenerReason.Invalid,
            listener.notReadyMessage ?? 'invalid',
            generation,
          ),
    ],
  }));
  const isAccepted = gateway.listeners.some((listener) => listener.isReady);
  const accepted = gatewayAccepted(gateway);
  const programmed = isAccepted
    ? createCondition(
        ConditionType.Programmed,
        false,
        GatewayReason.Pending,
        'waiting for the data plane',
        generation,
      )
    : createCondition(
        ConditionType.Programmed,
        false,
        GatewayReason.Invalid,
        gateway.invalidParameters === undefined
          ? 'the Gateway has no valid listener'
          : 'the Gateway is not accepted',
        generation,
      );
  return { conditions: [accepted, programmed], listeners };
}
