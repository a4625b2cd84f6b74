/** One entry of `Status.details.causes`, as kube-apiserver writes it. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** `Status.details`: `kind` holds the plural resource for most errors and the Kind for `Invalid`. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The `Status` object every API error (and a plain delete) is answered with. */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  /** The HTTP code; absent on a `Success` status, as kube-apiserver omits it there. */
  code?: number;
}

/** The names of one resource that error messages need: API group, plural resource and Kind. */
export interface ResourceNames {
  group: string;
  plural: string;
  kind: string;
}

/** Thrown inside the server for any request that ends in a `Status` error; `status.code` is the HTTP code. */
export class ApiStatusError extends Error {
  override readonly name = 'ApiStatusError';
  readonly code = 'ERR_API_STATUS' as const;
  readonly status: KubeStatus;
  /** The HTTP code to answer with. */
  readonly httpCode: number;

  constructor(status: KubeStatus, options?: { cause?: unknown }) {
    super(status.message ?? status.reason ?? `HTTP ${status.code ?? 500}`, options);
    this.status = status;
    this.httpCode = status.code ?? 500;
  }
}

/** Thrown by `apply()` when a manifest cannot be read (bad YAML, no kind, unknown resource). */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  readonly code = 'ERR_MANIFEST' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Thrown when the server cannot start, pause or resume (port in use, already stopped). */
export class ServerStateError extends Error {
  override readonly name = 'ServerStateError';
  readonly code = 'ERR_SERVER_STATE' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

const reasonByCode: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The `reason` kube-apiserver uses for an HTTP code (`InternalError` for unknown 5xx, `Unknown` otherwise). */
export function reasonForCode(code: number): string {
  return reasonByCode[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
}

/** Builds a failure `Status`; fields appear in the order kube-apiserver writes them. */
export function buildFailureStatus(
  code: number,
  message: string,
  reason: string = reasonForCode(code),
  details?: StatusDetails,
): KubeStatus {
  const status: KubeStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
  };
  if (details !== undefined) status.details = details;
  status.code = code;
  return status;
}

/** `ingresses.networking.k8s.io` for grouped resources, `pods` for the core group. */
export function qualifyResource(names: Pick<ResourceNames, 'group' | 'plural'>): string {
  return names.group === '' ? names.plural : `${names.plural}.${names.group}`;
}

/** `Ingress.networking.k8s.io` for grouped kinds, `Pod` for the core group. */
export function qualifyKind(names: Pick<ResourceNames, 'group' | 'kind'>): string {
  return names.group === '' ? names.kind : `${names.kind}.${names.group}`;
}

function resourceDetails(names: ResourceNames, name: string, uid?: string): StatusDetails {
  const details: StatusDetails = { name };
  if (names.group !== '') details.group = names.group;
  details.kind = names.plural;
  if (uid !== undefined) details.uid = uid;
  return details;
}

/** 404 `NotFound`: `ingresses.networking.k8s.io "a" not found`. */
export function buildNotFoundStatus(names: ResourceNames, name: string): KubeStatus {
  return buildFailureStatus(
    404,
    `${qualifyResource(names)} "${name}" not found`,
    'NotFound',
    resourceDetails(names, name),
  );
}

/** 409 `AlreadyExists`: `ingresses.networking.k8s.io "a" already exists`. */
export function buildAlreadyExistsStatus(names: ResourceNames, name: string): KubeStatus {
  return buildFailureStatus(
    409,
    `${qualifyResource(names)} "${name}" already exists`,
    'AlreadyExists',
    resourceDetails(names, name),
  );
}

/** 409 `Conflict` for a stale resourceVersion, or with `detail` for a failed precondition. */
export function buildConflictStatus(names: ResourceNames, name: string, detail?: string): KubeStatus {
  const why =
    detail ?? 'the object has been modified; please apply your changes to the latest version and try again';
  return buildFailureStatus(
    409,
    `Operation cannot be fulfilled on ${qualifyResource(names)} "${name}": ${why}`,
    'Conflict',
    resourceDetails(names, name),
  );
}

/** The kind of a field error, as `Status.details.causes[].reason` spells it. */
export type FieldErrorType =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueForbidden'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong';

/** One validation failure on one field path (`spec.rules[0].host`). */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value; printed Go-style in the message (strings quoted). */
  value?: unknown;
  detail: string;
}

/** The cause text kube-apiserver writes for a field error, without the field path. */
export function describeFieldError(error: FieldError): string {
  switch (error.type) {
    case 'FieldValueInvalid':
      return `Invalid value: ${formatGoValue(error.value)}: ${error.detail}`;
    case 'FieldValueRequired':
      return `Required value${error.detail ? `: ${error.detail}` : ''}`;
    case 'FieldValueForbidden':
      return `Forbidden${error.detail ? `: ${error.detail}` : ''}`;
    case 'FieldValueNotSupported':
      return `Unsupported value: ${formatGoValue(error.value)}${error.detail ? `: ${error.detail}` : ''}`;
    case 'FieldValueDuplicate':
      return `Duplicate value: ${formatGoValue(error.value)}`;
    case 'FieldValueTooLong':
      return `Too long: ${error.detail}`;
  }
}

// Strings print quoted, as Go's %q does; everything else as JSON.
function formatGoValue(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** 422 `Invalid` with one cause per field error; `details.kind` holds the Kind, not the resource. */
export function buildInvalidStatus(
  names: Pick<ResourceNames, 'group' | 'kind'>,
  name: string,
  errors: readonly FieldError[],
): KubeStatus {
  const messages = errors.map((error) => `${error.field}: ${describeFieldError(error)}`);
  const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const details: StatusDetails = { name };
  if (names.group !== '') details.group = names.group;
  details.kind = names.kind;
  details.causes = errors.map((error) => ({
    reason: error.type,
    message: describeFieldError(error),
    field: error.field,
  }));
  return buildFailureStatus(
    422,
    `${qualifyKind(names)} "${name}" is invalid: ${summary}`,
    'Invalid',
    details,
  );
}

/** 400 `BadRequest` with the given message. */
export function buildBadRequestStatus(message: string): KubeStatus {
  return buildFailureStatus(400, message, 'BadRequest');
}

/** 410 `Expired` with the given message (too old resourceVersion or continue token). */
export function buildExpiredStatus(message: string): KubeStatus {
  return buildFailureStatus(410, message, 'Expired');
}

/** 415 `UnsupportedMediaType` listing the accepted patch types. */
export function buildUnsupportedMediaTypeStatus(accepted: readonly string[]): KubeStatus {
  return buildFailureStatus(
    415,
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    'UnsupportedMediaType',
  );
}

/** 404 for a URL that names no resource at all. */
export function buildUnknownPathStatus(): KubeStatus {
  return buildFailureStatus(404, 'the server could not find the requested resource', 'NotFound', {});
}

/** 405 for a verb the resource does not support. */
export function buildMethodNotAllowedStatus(): KubeStatus {
  return buildFailureStatus(
    405,
    'the server does not allow this method on the requested resource',
    'MethodNotAllowed',
    {},
  );
}

/** A successful delete answered without the object: `details` name the deleted object. */
export function buildDeleteSuccessStatus(names: ResourceNames, name: string, uid: string): KubeStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: resourceDetails(names, name, uid),
  };
}

/** Shorthand: throws an `ApiStatusError` carrying `status`. */
export function failWith(status: KubeStatus): never {
  throw new ApiStatusError(status);
}

export { SelectorSyntaxError } from '@ingresskit/kube-objects/pure';

/** Thrown by the patch functions: 400 for a malformed patch, 422 for one that cannot be applied. */
export class PatchError extends Error {
  override readonly name = 'PatchError';
  readonly code = 'ERR_PATCH' as const;
  readonly httpCode: 400 | 422;

  constructor(message: string, httpCode: 400 | 422, options?: { cause?: unknown }) {
    super(message, options);
    this.httpCode = httpCode;
  }
}
