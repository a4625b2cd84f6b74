/**
 * Whether this Node.js can run ingresskit, checked before anything else is loaded, so an older Node
 * says so in one line instead of failing somewhere inside a dependency.
 */
import packageJson from '../package.json' with { type: 'json' };

/**
 * The oldest Node.js ingresskit runs on: the floor of its `engines` field (`>=22.19`), set by
 * @kubernetes/client-node 2 (undici 8).
 */
export const MINIMUM_NODE_VERSION = floorOf(packageJson.engines.node);

/** `>=22.19` → `22.19.0`. */
function floorOf(range: string): string {
  const parts = range.replace(/^>=\s*/, '').split('.');
  while (parts.length < 3) parts.push('0');
  return parts.join('.');
}

function parse(version: string): number[] {
  return version
    .replace(/^v/, '')
    .split('.')
    .map((part) => Number.parseInt(part, 10) || 0);
}

/** Why `version` (`process.version`) cannot run ingresskit, or undefined when it can. */
export function unsupportedNodeReason(version: string): string | undefined {
  const have = parse(version);
  const need = parse(MINIMUM_NODE_VERSION);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) > need[i]!) return undefined;
    if ((have[i] ?? 0) < need[i]!) {
      return `ingresskit needs Node.js ${MINIMUM_NODE_VERSION} or later (24 LTS recommended); this is Node.js ${version}`;
    }
  }
  return undefined;
}
