/**
 * ClientLimits → the limits entry the Lua limiter reads. A limit that cannot be read makes the
 * route answer 500 (serving it unlimited would be the unsafe way to fail); an exempt network that
 * cannot be read exempts no one.
 */
import type { ClientLimits } from '@ingresskit/route-model';
import { parseCidr } from './cidr.js';
import type { LimitsEntry } from './data-entries.js';

/** What compiling limits reports: a fatal error or a stricter reading, by field. */
export interface LimitsIssues {
  error(field: string, message: string, value?: unknown): undefined;
  strict(field: string, message: string, value?: unknown): void;
}

const MAX_COUNT = 1_000_000_000;
const MAX_SCOPE_LENGTH = 1024;
// eslint-disable-next-line no-control-regex -- the scope is part of shared-dict keys and log lines
const CONTROL = /[\u0000-\u001f\u007f]/;
const SECONDS_PER: Readonly<Record<string, number>> = { second: 1, minute: 60 };

function isCount(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX_COUNT;
}

function isRefusalStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599;
}

/** Compiles `policy.clientLimits`; undefined after an error reported through `out`. */
export function compileClientLimits(limits: ClientLimits, out: LimitsIssues): LimitsEntry | undefined {
  const field = 'policy.clientLimits';
  const { scope, statusCode, connectionsStatusCode } = limits;
  if (typeof scope !== 'string' || scope === '' || scope.length > MAX_SCOPE_LENGTH || CONTROL.test(scope)) {
    return out.error(`${field}.scope`, 'must be a name without control characters', scope);
  }
  if (!isRefusalStatus(statusCode)) {
    return out.error(`${field}.statusCode`, 'must be an HTTP status from 400 to 599', statusCode);
  }
  const entry: LimitsEntry = { scope, status: statusCode };
  if (connectionsStatusCode !== undefined && connectionsStatusCode !== statusCode) {
    if (!isRefusalStatus(connectionsStatusCode)) {
      return out.error(
        `${field}.connectionsStatusCode`,
        'must be an HTTP status from 400 to 599',
        connectionsStatusCode,
      );
    }
    entry.cstatus = connectionsStatusCode;
  }
  if (limits.connections !== undefined) {
    if (!isCount(limits.connections, 1))
      return out.error(`${field}.connections`, 'must be a whole number of at least 1', limits.connections);
    entry.conn = limits.connections;
  }
  if (limits.rates !== undefined) {
    const rates: [number, number][] = [];
    for (const [index, rate] of (Array.isArray(limits.rates) ? limits.rates : []).entries()) {
      const seconds = SECONDS_PER[String(rate?.per)];
      if (seconds === undefined)
        return out.error(`${field}.rates[${index}].per`, 'must be second or minute', rate?.per);
      if (!isCount(rate.rate, 1))
        return out.error(`${field}.rates[${index}].rate`, 'must be a whole number of at least 1', rate.rate);
      if (!isCount(rate.burst, 0))
        return out.error(
          `${field}.rates[${index}].burst`,
          'must be a whole number of at least 0',
          rate.burst,
        );
      rates.push([rate.rate / seconds, rate.burst]);
    }
    if (rates.length > 0) entry.rates = rates;
  }
  if (entry.conn === undefined && entry.rates === undefined) {
    return out.error(field, 'must hold connections or at least one rate');
  }
  if (limits.exemptSources !== undefined)
    entry.exempt = compileExemptSources(limits.exemptSources, `${field}.exemptSources`, out);
  return entry;
}

/** Exempt CIDRs → the networks the Lua limiters compare; one that cannot be read exempts no client. */
export function compileExemptSources(
  sources: readonly string[],
  field: string,
  out: Pick<LimitsIssues, 'strict'>,
): [string, number][] {
  const networks: [string, number][] = [];
  (Array.isArray(sources) ? sources : []).forEach((source: string, index) => {
    const parsed = parseCidr(source);
    if (parsed === undefined)
      out.strict(`${field}[${index}]`, 'is not an IP address or CIDR; it exempts no client', source);
    else networks.push([parsed.hex, parsed.bits]);
  });
  return networks;
}
