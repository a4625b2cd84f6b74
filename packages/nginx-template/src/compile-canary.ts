/**
 * Backend groups and a route's canary → the member lists and the canary entry the Lua router
 * reads. A canary that cannot be read makes the route answer 500 rather than send canary traffic
 * where it was not asked to go.
 */
import type { CanarySplit, WeightedBackend } from '@ingresskit/route-model';
import type { CanaryEntry, MemberEntry } from './data-entries.js';

/** What compiling reports: a fatal error, or a warning, by field. */
export interface MemberIssues {
  error(field: string, message: string, value?: unknown): undefined;
  warn(field: string, message: string, value?: unknown): void;
}

const HEADER_NAME = /^[A-Za-z0-9_-]{1,256}$/;
const COOKIE_NAME = /^[A-Za-z0-9._-]{1,256}$/;
// eslint-disable-next-line no-control-regex -- a header value with these never arrives
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_WEIGHT = 1_000_000_000;

function isStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 200 && value <= 599;
}

/** Weighted backends → members with cumulative weights (zero weights dropped) and the total. */
export function compileMembers(
  backends: readonly WeightedBackend[] | undefined,
  field: string,
  out: MemberIssues,
): { members: MemberEntry[]; total: number } {
  const members: MemberEntry[] = [];
  let total = 0;
  (backends ?? []).forEach((member, index) => {
    const weight = member.weight;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
      out.warn(`${field}[${index}].weight`, 'must be a number of at least 0; counts as 0', weight);
      return;
    }
    if (weight === 0) return;
    total += weight;
    if (typeof member.backend === 'string') {
      members.push({ backend: member.backend, upto: total });
      return;
    }
    let status = member.statusCode ?? 500;
    if (!isStatus(status)) {
      out.warn(
        `${field}[${index}].statusCode`,
        'must be an HTTP status from 200 to 599; 500 is used',
        status,
      );
      status = 500;
    }
    members.push({ status, upto: total });
  });
  return { members, total };
}

function isWeight(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX_WEIGHT;
}

/** A forward action's canary → its entry, or undefined after an error. */
export function compileCanary(canary: CanarySplit, out: MemberIssues): CanaryEntry | undefined {
  const field = 'action.canary';
  if (!isWeight(canary.weightTotal, 1)) {
    return out.error(`${field}.weightTotal`, 'must be a whole number of at least 1', canary.weightTotal);
  }
  if (!isWeight(canary.weight, 0) || canary.weight > canary.weightTotal) {
    return out.error(`${field}.weight`, 'must be a whole number from 0 to weightTotal', canary.weight);
  }
  const { members, total } = compileMembers(canary.backends, `${field}.backends`, out);
  if (total === 0) return out.error(`${field}.backends`, 'must hold a member with a weight above 0');
  const entry: CanaryEntry = { members, total, weight: canary.weight, weightTotal: canary.weightTotal };
  if (canary.affinity === 'legacy') entry.legacyAffinity = true;
  else if (canary.affinity !== undefined && canary.affinity !== 'sticky') {
    return out.error(`${field}.affinity`, 'must be "sticky" or "legacy"', canary.affinity);
  }
  if (canary.header !== undefined) {
    const { name, value, pattern } = canary.header;
    if (typeof name !== 'string' || !HEADER_NAME.test(name)) {
      return out.error(`${field}.header.name`, 'must be letters, digits, "-" and "_"', name);
    }
    // nginx's variable for a request header: lower case, "-" as "_".
    const variable = `http_${name.toLowerCase().replace(/-/g, '_')}`;
    if (value !== undefined) {
      if (typeof value !== 'string' || CONTROL.test(value)) {
        return out.error(`${field}.header.value`, 'must be text without control characters', value);
      }
      entry.header = [variable, 'value', value];
    } else if (pattern !== undefined) {
      if (typeof pattern !== 'string' || pattern === '' || CONTROL.test(pattern)) {
        return out.error(`${field}.header.pattern`, 'must be a regex without control characters', pattern);
      }
      entry.header = [variable, 'pattern', pattern];
    } else entry.header = [variable, 'switch'];
  }
  if (canary.cookie !== undefined) {
    if (typeof canary.cookie !== 'string' || !COOKIE_NAME.test(canary.cookie)) {
      return out.error(`${field}.cookie`, 'must be letters, digits, ".", "-" and "_"', canary.cookie);
    }
    entry.cookie = `cookie_${canary.cookie}`;
  }
  return entry;
}
