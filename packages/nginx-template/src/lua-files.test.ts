import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { luaDirectory, luaFiles } from './index.js';

describe('luaFiles', () => {
  it('points at every shipped module, each returning its table', () => {
    expect(luaFiles.map((file) => file.module)).toEqual([
      'ingresskit.control',
      'ingresskit.digest',
      'ingresskit.store',
      'ingresskit.validate',
      'ingresskit.validate_values',
      'ingresskit.validate_policy',
      'ingresskit.router',
      'ingresskit.networks',
      'ingresskit.limits',
      'ingresskit.global_limits',
      'ingresskit.memcached',
      'ingresskit.canary',
      'ingresskit.canary_affinity',
      'ingresskit.client_certificates',
      'ingresskit.basic_auth',
      'ingresskit.digest_auth',
      'ingresskit.auth_keepalive',
      'ingresskit.external_auth',
      'ingresskit.affinity',
      'ingresskit.response_rewrites',
      'ingresskit.endpoints',
      'ingresskit.request_metrics',
      'ingresskit.balancer',
      'ingresskit.relay',
      'ingresskit.custom_errors',
      'ingresskit.hop',
      'ingresskit.certificates',
    ]);
    for (const file of luaFiles) {
      expect(existsSync(file.path)).toBe(true);
      expect(file.path).toBe(join(luaDirectory, file.relativePath));
      expect(readFileSync(file.path, 'utf8')).toContain('return _M');
    }
  });

  it('ships every module a rendered nginx.conf or another module requires', () => {
    const shipped = new Set(luaFiles.map((file) => file.module));
    const required = new Set<string>();
    for (const file of luaFiles) {
      for (const match of readFileSync(file.path, 'utf8').matchAll(/require\("(ingresskit\.[a-z_]+)"\)/g))
        required.add(match[1]!);
    }
    expect([...required].filter((module) => !shipped.has(module))).toEqual([]);
  });
});
