import { describe, expect, it } from 'vitest';
import { unsupportedNodeReason } from './node-version.js';

describe('unsupportedNodeReason', () => {
  it.each(['v22.19.0', 'v22.20.1', 'v23.0.0', 'v24.21.0', 'v25.1.0'])('runs on %s', (version) => {
    expect(unsupportedNodeReason(version)).toBeUndefined();
  });

  it.each(['v20.20.2', 'v22.18.9', 'v18.0.0'])('names the floor on %s', (version) => {
    expect(unsupportedNodeReason(version)).toBe(
      `ingresskit needs Node.js 22.19.0 or later (24 LTS recommended); this is Node.js ${version}`,
    );
  });
});
