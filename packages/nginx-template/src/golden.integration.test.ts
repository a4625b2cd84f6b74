/** Every golden nginx.conf, as rendered (golden.test.ts checks it is as recorded), passes `nginx -t` without warnings. */
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNginxPrefix, testNginxConf } from './testing/nginx-process.js';
import { listGoldenCases, renderGoldenCase } from './testing/golden.js';

describe('renderNginxConf (golden, nginx -t)', () => {
  it.each(listGoldenCases())('%s.out.conf passes nginx -t', async (name) => {
    const { options, conf } = renderGoldenCase(name);
    // nginx -t binds the control socket, so its (recorded, absolute) directory must exist.
    const socketDirectory = dirname(options.controlSocketPath);
    await mkdir(socketDirectory, { recursive: true, mode: 0o700 });
    const prefix = await createNginxPrefix(conf);
    try {
      const outcome = await testNginxConf(prefix);
      expect(outcome.output).toContain('test is successful');
      expect(outcome.output).not.toMatch(/\[(warn|emerg|alert|crit)\]/);
      expect(outcome.ok).toBe(true);
    } finally {
      await prefix.remove();
      await rm(socketDirectory, { recursive: true, force: true });
    }
  });
});
