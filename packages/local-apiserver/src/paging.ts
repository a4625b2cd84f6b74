/**
 * Lists by kube-apiserver's rules: which resourceVersion a list reads at, and the continue tokens
 * between its pages.
 */
import {
  buildBadRequestStatus,
  buildExpiredStatus,
  buildFailureStatus,
  buildInvalidStatus,
  failWith,
  type FieldError,
} from './errors.js';
import { isPlainObject } from './objects.js';

/** The list query parameters the server understands. */
export interface ListQuery {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: number | undefined;
  continue?: string | undefined;
  resourceVersion?: string | undefined;
  resourceVersionMatch?: string | undefined;
}

/** How to serve one list page: at which resourceVersion, from which key, how many items. */
export interface ListPlan {
  atRv: number;
  startKey: string | undefined;
  /** 0 = no limit. */
  limit: number;
}

const expiredContinueMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * Applies kube-apiserver's list rules: unset or "0" reads the latest state; N reads "not older
 * than N", which is exact when a limit is set or `resourceVersionMatch=Exact`; a continue token
 * reads at its first page's resourceVersion. Throws 422 for invalid option combinations, 400 for a
 * bad token, 410 when the needed history is gone and 504 for a resourceVersion from the future.
 */
export function planListRead(query: ListQuery, currentRv: number, covers: (rv: number) => boolean): ListPlan {
  const match = query.resourceVersionMatch;
  const requested = query.resourceVersion;
  const optionErrors: FieldError[] = [];
  if (match !== undefined && match !== '') {
    if (requested === undefined || requested === '') {
      optionErrors.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided',
      });
    } else if (match !== 'NotOlderThan' && match !== 'Exact') {
      optionErrors.push({
        type: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        value: match,
        detail: 'supported values: "Exact", "NotOlderThan", ""',
      });
    } else if (match === 'Exact' && requested === '0') {
      optionErrors.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      });
    }
    if (query.continue) {
      optionErrors.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'resourceVersionMatch is forbidden when continue is provided',
      });
    }
  }
  if (optionErrors.length > 0) {
    failWith(buildInvalidStatus({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', optionErrors));
  }
  const limit = query.limit !== undefined && query.limit > 0 ? Math.floor(query.limit) : 0;
  const hasRequested = requested !== undefined && requested !== '' && requested !== '0';
  if (query.continue) {
    if (hasRequested)
      failWith(buildBadRequestStatus('specifying resource version is not allowed when using continue'));
    const token = decodeContinueToken(query.continue);
    if (!covers(token.rv)) failWith(buildExpiredStatus(expiredContinueMessage));
    return { atRv: token.rv, startKey: token.start, limit };
  }
  if (!hasRequested) return { atRv: currentRv, startKey: undefined, limit };
  const wanted = parseResourceVersion(requested);
  if (wanted > currentRv) {
    failWith(
      buildFailureStatus(
        504,
        `Timeout: Too large resource version: ${wanted}, current: ${currentRv}`,
        'Timeout',
        {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        },
      ),
    );
  }
  const isExact = match === 'Exact' || ((match === undefined || match === '') && limit > 0);
  if (!isExact) return { atRv: currentRv, startKey: undefined, limit };
  if (!covers(wanted)) failWith(buildExpiredStatus('The resourceVersion for the provided list is too old.'));
  return { atRv: wanted, startKey: undefined, limit };
}

/** Parses a resourceVersion query value; 400 unless it is a decimal number. */
export function parseResourceVersion(value: string): number {
  if (!/^\d+$/.test(value))
    failWith(buildBadRequestStatus(`invalid resource version: ${JSON.stringify(value)}`));
  return Number(value);
}

/** An opaque continue token carrying the list resourceVersion and the key to resume after. */
export function encodeContinueToken(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64');
}

/** Reads a continue token; 400 for anything this server did not issue. */
export function decodeContinueToken(token: string): { rv: number; start: string } {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (isPlainObject(decoded) && typeof decoded.rv === 'number' && typeof decoded.start === 'string') {
      return { rv: decoded.rv, start: decoded.start };
    }
  } catch {
    // Falls through to the 400 below: the token is opaque to clients, so any garbage is a bad request.
  }
  failWith(
    buildBadRequestStatus(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    ),
  );
}

/** The index of the first key not less than `value` in sorted `keys`. */
export function lowerBound(keys: readonly string[], value: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The `[start, end)` range of sorted `namespace/name` keys in one namespace, or all keys. */
export function namespaceRange(keys: readonly string[], namespace: string | undefined): [number, number] {
  if (namespace === undefined) return [0, keys.length];
  const prefix = `${namespace}/`;
  const start = lowerBound(keys, prefix);
  let end = start;
  while (end < keys.length && keys[end]!.startsWith(prefix)) end += 1;
  return [start, end];
}
