import { describe, expect, it } from 'vitest';
import { ExitCode, runCommand } from './index.js';

describe('runCommand', () => {
  it('prints usage and exits 0 for help', () => {
    const result = runCommand(['--help']);
    expect(result.exitCode).toBe(ExitCode.ok);
    expect(result.stdout).toMatch(/^Usage: ingresskit/);
  });

  it('names an unknown command and exits 2', () => {
    const result = runCommand(['frobnicate']);
    expect(result.exitCode).toBe(ExitCode.usage);
    expect(result.stderr).toContain('unknown command "frobnicate"');
  });
});
