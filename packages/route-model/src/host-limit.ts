/**
 * A limit on what one assembled virtual host may hold, set by whoever serves the table (a data
 * plane's regex budget, say). The sources of a hostname are admitted oldest first: one whose
 * routes would take the host past the limit is left out of it, with a `host-limit-exceeded` note,
 * and younger ones that still fit are admitted. A new source therefore never pushes out an older
 * one, and deleting or shrinking one lets the next ones in.
 */
import { assembleVirtualHost, type AssembledVirtualHost, type SourcedHostContribution } from './assemble.js';
import { oldestOriginOf } from './host-ownership.js';
import { compareOrigins } from './precedence.js';
import type { Route, VirtualHost } from './types.js';

/** Why `virtualHost` is past the limit (a sentence about the host), or undefined when it fits. */
export type HostLimit = (virtualHost: VirtualHost) => string | undefined;

function compareAge(a: SourcedHostContribution, b: SourcedHostContribution): number {
  const originA = oldestOriginOf(a.host);
  const originB = oldestOriginOf(b.host);
  if (originA === undefined || originB === undefined)
    return (originA === undefined ? 1 : 0) - (originB === undefined ? 1 : 0);
  return compareOrigins(originA, originB);
}

/**
 * Assembles `hostname` from `contributions` as assembleVirtualHost does, leaving out, oldest
 * first, each source that would take the host past `limit`. Without a limit, or within it, this
 * is one assembly.
 */
export function assembleWithinLimit(
  hostname: string,
  contributions: readonly SourcedHostContribution[],
  defaultFallback: Route | undefined,
  limit: HostLimit | undefined,
): AssembledVirtualHost {
  const whole = assembleVirtualHost(hostname, contributions, defaultFallback);
  if (limit === undefined || whole.virtualHost === undefined || limit(whole.virtualHost) === undefined)
    return whole;
  const kept: SourcedHostContribution[] = [];
  const notes: AssembledVirtualHost['notes'] = [];
  for (const contribution of [...contributions].sort(compareAge)) {
    const trial = assembleVirtualHost(hostname, [...kept, contribution], defaultFallback).virtualHost;
    const reason = trial === undefined ? undefined : limit(trial);
    if (reason === undefined) kept.push(contribution);
    else notes.push({ type: 'host-limit-exceeded', source: contribution.source, hostname, reason });
  }
  const assembled = assembleVirtualHost(hostname, kept, defaultFallback);
  return { virtualHost: assembled.virtualHost, notes: [...notes, ...assembled.notes] };
}
