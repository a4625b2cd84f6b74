import { readFileSync } from 'node:fs';
import { GATEWAY_API_PROBLEM_CODES } from '@ingresskit/gateway-routes';
import { BACKEND_PROBLEM_CODES, INGRESS_PROBLEM_CODES } from '@ingresskit/ingress-routes';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES_DOC_PATH, renderProblemCodesDoc } from '../scripts/problem-codes-doc.js';

const root = new URL('..', import.meta.url);

describe('renderProblemCodesDoc', () => {
  it('matches the committed docs/problem-codes.md (run `pnpm docs:problem-codes` after a change)', async () => {
    expect(readFileSync(new URL(PROBLEM_CODES_DOC_PATH, root), 'utf8')).toBe(await renderProblemCodesDoc());
  });

  it('lists every code of every translator, each once per list', async () => {
    const page = await renderProblemCodesDoc();
    for (const codes of [INGRESS_PROBLEM_CODES, BACKEND_PROBLEM_CODES, GATEWAY_API_PROBLEM_CODES]) {
      for (const code of Object.keys(codes)) expect(page).toContain(`| \`${code}\``);
    }
  });
});
