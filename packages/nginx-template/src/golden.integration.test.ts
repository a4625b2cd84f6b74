/** Every golden nginx.conf, byte for byte as recorded, passes `nginx -t` with its certificates, without warnings. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNginxPrefix, testNginxConf } from './testing/nginx-process.js';
import { listGoldenCases, renderGoldenCase, TESTDATA_DIR } from './testing/golden.js';

describe('renderNginxConf (golden, nginx -t)', () => {
  it.each(listGoldenCases())('%s.out.conf passes nginx -t', async (name) => {
    const conf = readFileSync(join(TESTDATA_DIR, `${name}.out.conf`), 'utf8');
    const { result } = renderGoldenCase(name);
    const prefix = await createNginxPrefix(conf, result.configuration.certificates);
    try {
      const outcome = await testNginxConf(prefix);
      expect(outcome.output).toContain('test is successful');
      expect(outcome.output).not.toMatch(/\[(warn|emerg|alert|crit)\]/);
      expect(outcome.ok).toBe(true);
    } finally {
      await prefix.remove();
    }
  });
});
