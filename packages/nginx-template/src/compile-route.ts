/**
 * Route → RouteEntry, the form the Lua router reads: its match, action and policy compiled into
 * one entry. Every value the data plane cannot take as written is decided by those compile steps,
 * once, for both the pushed data and buildConfiguration's problems:
 * a value that would change what a route does in an unsafe way (a header that could split a
 * response, a redirect to an invalid host) makes the route answer 500; a value that only loses
 * precision (an unknown protocol, an invalid limit) falls back to the default; an allowlist entry
 * that cannot be parsed admits no one.
 */
import type { BackendProtocol, Route } from '@ingresskit/route-model';
import { compileAction } from './compile-action.js';
import { compileMatch } from './compile-match.js';
import { compileOrigin } from './compile-origin.js';
import { compilePolicy } from './compile-policy.js';
import type { RouteEntry } from './data-entries.js';
import { compileBackendTlsRelay } from './backend-tls.js';
import { isBackendProtocol, profileOf } from './profiles.js';
import { NO_UPSTREAM_DEFAULTS, type UpstreamDefaults } from './upstream-directives.js';
import { RouteIssueCollector, type RouteIssue } from './route-issues.js';

export type { RouteIssue } from './route-issues.js';

/** A compiled route and what compiling it decided. */
export interface CompiledRoute {
  entry: RouteEntry;
  issues: RouteIssue[];
}

/**
 * Compiles one route of the virtual host `hostname` (`*.example.com`, `*`; it names the backend
 * of a backend TLS policy when nothing else does) against the profiles of the operator's
 * `defaults` (nginx.conf's). A route with an error that could change what it does becomes a route
 * with the same id and match that answers 500, so the rest of its host is still served.
 */
export function compileRoute(
  route: Route,
  hostname?: string,
  defaults: UpstreamDefaults = NO_UPSTREAM_DEFAULTS,
): CompiledRoute {
  const out = new RouteIssueCollector();
  const entry = compileMatch(route, out);
  const origin = compileOrigin(route.origin);
  if (origin !== undefined) entry.origin = origin;
  const action = compileAction(route, out);
  const policy = compilePolicy(route, defaults, out);
  if (out.fatal || action === undefined) {
    entry.action = { type: 'respond', status: 500 };
    return { entry, issues: out.issues };
  }
  let profile = profileOf(route, defaults.catalogue);
  const usual = profile && defaults.catalogue.defaults[profile.family];
  if (profile !== undefined && policy.mirror !== undefined && profile.name !== usual!.name) {
    // nginx.conf has a mirroring location for the operator's directives only.
    out.warn('policy.mirror', "mirrored routes are proxied with nginx.conf's default directives");
    profile = usual;
  }
  const relay = profile === undefined ? undefined : compileBackendTlsRelay(route, hostname);
  if (profile !== undefined && relay !== 'closed') {
    const declared = isBackendProtocol(route.policy.backendProtocol) ? route.policy.backendProtocol : 'HTTP';
    entry.profile = profile.name;
    // nginx speaks plain text to the TLS relay's socket (HTTP/1.1, or h2c for gRPC): the relay
    // opens TLS to the endpoint with the route's backend TLS settings.
    entry.protocol = relay === undefined ? declared : plainProtocolOf(declared);
  }
  entry.action = action;
  if (relay === 'closed') {
    // Never unverified TLS, nor TLS without the client certificate the backend expects.
    entry.action = { type: 'respond', status: 503 };
    out.strict(
      'policy.backendTls',
      'cannot be served as written (or verifies without a server name on a wildcard or catch-all host); the route answers 503',
    );
  } else if (relay !== undefined) {
    policy.relay = relay.id;
  }
  if (Object.keys(policy).length > 0) entry.policy = policy;
  return { entry, issues: out.issues };
}

/** The protocol of the same backend module without TLS. */
function plainProtocolOf(protocol: BackendProtocol): BackendProtocol {
  return protocol === 'GRPCS' ? 'GRPC' : protocol === 'HTTPS' ? 'HTTP' : protocol;
}
