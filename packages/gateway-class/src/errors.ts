/** The configured controllerName does not follow Gateway API's `GatewayController` grammar. */
export class InvalidControllerNameError extends Error {
  override readonly name = 'InvalidControllerNameError';
  readonly code = 'ERR_INVALID_CONTROLLER_NAME' as const;

  constructor(controllerName: string) {
    super(
      `controllerName ${JSON.stringify(controllerName)} is not a valid Gateway API controller name ` +
        '(expected a domain, a slash and a path, e.g. ingresskit.dev/gateway-controller)',
    );
  }
}

/** A supported-version pattern in the version policy cannot be parsed. */
export class InvalidVersionPolicyError extends Error {
  override readonly name = 'InvalidVersionPolicyError';
  readonly code = 'ERR_INVALID_VERSION_POLICY' as const;

  constructor(pattern: string) {
    super(
      `supported version ${JSON.stringify(pattern)} is neither a version (v1.6.1) nor a range (v1.6.x, v1)`,
    );
  }
}

/** A request to the API server about a GatewayClass failed for a reason other than a conflict or absence. */
export class GatewayClassApiError extends Error {
  override readonly name = 'GatewayClassApiError';
  readonly code = 'ERR_GATEWAY_CLASS_API' as const;

  constructor(
    readonly operation: string,
    readonly gatewayClassName: string,
    readonly statusCode: number | undefined,
    options: { cause: unknown },
  ) {
    super(
      `${operation} GatewayClass "${gatewayClassName}" failed` +
        (statusCode === undefined ? '' : ` with HTTP ${statusCode}`),
      options,
    );
  }
}

/** A write kept conflicting with concurrent writers after every retry. */
export class GatewayClassConflictError extends Error {
  override readonly name = 'GatewayClassConflictError';
  readonly code = 'ERR_GATEWAY_CLASS_CONFLICT' as const;

  constructor(
    readonly gatewayClassName: string,
    readonly attempts: number,
  ) {
    super(`GatewayClass "${gatewayClassName}" was modified concurrently ${attempts} times in a row`);
  }
}

// A `reconciled` listener threw: task-queue's ListenerError, reported through the controller's
// `error` event; GatewayClassListenerError is its former public name.
export { ListenerError as GatewayClassListenerError, ListenerError } from '@ingresskit/task-queue';

/** start() was called on a controller that is already running or stopped. */
export class ControllerStateError extends Error {
  override readonly name = 'ControllerStateError';
  readonly code = 'ERR_GATEWAY_CLASS_CONTROLLER_STATE' as const;

  constructor(state: string) {
    super(`GatewayClassController cannot start: it is ${state}`);
  }
}
