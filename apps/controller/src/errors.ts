/** A command-line flag or argument the user must fix; the CLI exits with code 2. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
  readonly code = 'ERR_INVALID_FLAG' as const;
}

/** `nginx -t` refused a rendered configuration; the running one keeps serving. */
export class NginxConfigTestError extends Error {
  override readonly name = 'NginxConfigTestError';
  readonly code = 'ERR_NGINX_CONFIG_TEST_FAILED' as const;

  constructor(
    /** What nginx printed. */
    readonly output: string,
    options?: { cause?: unknown },
  ) {
    super(`nginx -t refused the new configuration: ${lastLines(output)}`, options);
  }
}

/** nginx did not pick up a configuration (reload or start) in time, or is not running. */
export class NginxReloadError extends Error {
  override readonly name = 'NginxReloadError';
  readonly code = 'ERR_NGINX_RELOAD_FAILED' as const;
}

/** nginx could not be started at all (missing binary, port taken, bad prefix). */
export class NginxStartError extends Error {
  override readonly name = 'NginxStartError';
  readonly code = 'ERR_NGINX_START_FAILED' as const;
}

/** nginx's control endpoint did not take a data push (not answering, full, or refusing). */
export class DataPlanePushError extends Error {
  override readonly name: string = 'DataPlanePushError';
  readonly code: 'ERR_DATA_PLANE_PUSH_FAILED' | 'ERR_DATA_PLANE_FULL' = 'ERR_DATA_PLANE_PUSH_FAILED';
}

/** nginx's shared memory has no room for a push; it stored nothing of it. */
export class DataPlaneFullError extends DataPlanePushError {
  override readonly name = 'DataPlaneFullError';
  override readonly code = 'ERR_DATA_PLANE_FULL' as const;
}

/** The local Ingress ids do not match the newest IngressCheckSum; the last good configuration stays. */
export class ChecksumMismatchError extends Error {
  override readonly name = 'ChecksumMismatchError';
  readonly code = 'ERR_CHECKSUM_MISMATCH' as const;
}

/** The controller cannot be set up as configured (no cluster configuration, bad flag combination). */
export class ControllerConfigError extends Error {
  override readonly name = 'ControllerConfigError';
  readonly code = 'ERR_CONTROLLER_CONFIG_INVALID' as const;
}

function lastLines(text: string): string {
  const lines = text
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '');
  return lines.slice(-3).join(' | ') || '(no output)';
}

/** Some Gateway or HTTPRoute status could not be written; the writer retries with backoff. */
export class GatewayStatusWriteError extends Error {
  override readonly name = 'GatewayStatusWriteError';
  readonly code = 'ERR_GATEWAY_STATUS_WRITE_FAILED' as const;
}
