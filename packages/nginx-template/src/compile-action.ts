/**
 * RouteAction → the action entry the Lua router runs: forward to backends, redirect, or respond.
 * A redirect the data plane could not send as written makes the route answer 500.
 */
import type { Route } from '@ingresskit/route-model';
import { compileCanary, compileMembers } from './compile-canary.js';
import { compilePathModifier } from './compile-path-change.js';
import type { ActionEntry } from './data-entries.js';

/** What compiling reports: a fatal error, or a warning, by field. */
export interface ActionIssues {
  error(field: string, message: string, value?: unknown): undefined;
  warn(field: string, message: string, value?: unknown): void;
}

const REDIRECT_STATUS = [301, 302, 303, 307, 308];
const HOSTNAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$/;
// A redirect's query goes into Location as written: characters that need no escaping, and escapes.
const QUERY = /^(?:[A-Za-z0-9._~\-=&+,:@/!]|%[0-9A-Fa-f]{2}){0,2048}$/;

function isStatus(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= 599;
}

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** Compiles `route.action`; undefined after an error reported through `out`. */
export function compileAction(route: Route, out: ActionIssues): ActionEntry | undefined {
  const action = route.action;
  switch (action.type) {
    case 'forward': {
      const entry: Extract<ActionEntry, { type: 'forward' }> = {
        type: 'forward',
        ...compileMembers(action.backends, 'action.backends', out),
      };
      if (action.canary !== undefined) {
        const canary = compileCanary(action.canary, out);
        if (canary === undefined) return undefined;
        entry.canary = canary;
      }
      return entry;
    }
    case 'redirect': {
      const redirect = action.redirect;
      if (!REDIRECT_STATUS.includes(redirect.statusCode)) {
        return out.error(
          'action.redirect.statusCode',
          `must be one of ${REDIRECT_STATUS.join(', ')}`,
          redirect.statusCode,
        );
      }
      const entry: Extract<ActionEntry, { type: 'redirect' }> = {
        type: 'redirect',
        status: redirect.statusCode,
      };
      if (redirect.scheme !== undefined) {
        if (redirect.scheme !== 'http' && redirect.scheme !== 'https') {
          return out.error('action.redirect.scheme', 'must be http or https', redirect.scheme);
        }
        entry.scheme = redirect.scheme;
      }
      if (redirect.hostname !== undefined) {
        if (typeof redirect.hostname !== 'string' || !HOSTNAME.test(redirect.hostname)) {
          return out.error(
            'action.redirect.hostname',
            'must be a host name or an IP address',
            redirect.hostname,
          );
        }
        entry.hostname = redirect.hostname;
      }
      if (redirect.port !== undefined) {
        if (!isPort(redirect.port))
          return out.error('action.redirect.port', 'must be a port from 1 to 65535', redirect.port);
        entry.port = redirect.port;
      }
      if (redirect.query !== undefined) {
        if (typeof redirect.query !== 'string' || !QUERY.test(redirect.query)) {
          return out.error(
            'action.redirect.query',
            'must be a URL query of A-Z a-z 0-9 . _ ~ - = & + , : @ / ! and %XX escapes',
            redirect.query,
          );
        }
        entry.query = redirect.query;
      }
      if (redirect.path !== undefined) {
        const path = compilePathModifier(redirect.path, route, 'action.redirect.path', out);
        if (path === undefined) return undefined;
        entry.path = path;
      }
      return entry;
    }
    case 'respond': {
      if (!isStatus(action.statusCode, 200)) {
        return out.error('action.statusCode', 'must be an HTTP status from 200 to 599', action.statusCode);
      }
      const entry: Extract<ActionEntry, { type: 'respond' }> = { type: 'respond', status: action.statusCode };
      if (action.body !== undefined) {
        if (typeof action.body !== 'string') return out.error('action.body', 'must be text', action.body);
        entry.body = action.body;
      }
      return entry;
    }
    default:
      return out.error(
        'action.type',
        'is not forward, redirect or respond',
        (action as { type?: unknown }).type,
      );
  }
}
