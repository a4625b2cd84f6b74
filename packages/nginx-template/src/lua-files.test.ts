import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { luaDirectory, luaFiles } from './index.js';

describe('luaFiles', () => {
  it('points at the shipped modules the template requires', () => {
    expect(luaFiles.map((file) => file.module)).toEqual(['ingresskit.configuration', 'ingresskit.balancer']);
    for (const file of luaFiles) {
      expect(existsSync(file.path)).toBe(true);
      expect(file.path).toBe(join(luaDirectory, file.relativePath));
      expect(readFileSync(file.path, 'utf8')).toContain('return _M');
    }
  });
});
