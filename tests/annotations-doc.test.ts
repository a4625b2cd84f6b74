import { readFileSync } from 'node:fs';
import {
  INGRESS_NGINX_ANNOTATIONS,
  parseAnnotations,
  SUPPORTED_ANNOTATIONS,
  DEFAULT_ANNOTATION_PREFIX,
} from '@ingresskit/ingress-routes';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS_DOC_PATH, renderAnnotationsDoc, statusOf } from '../scripts/annotations-doc.js';

const root = new URL('..', import.meta.url);

describe('renderAnnotationsDoc', () => {
  it('matches the committed docs/annotations.md (run `pnpm docs:annotations` after a change)', async () => {
    expect(readFileSync(new URL(ANNOTATIONS_DOC_PATH, root), 'utf8')).toBe(await renderAnnotationsDoc());
  });

  it('lists every annotation once, and every supported annotation is in the catalogue', () => {
    const names = INGRESS_NGINX_ANNOTATIONS.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(130);
    // `version` is Tengine's checksum annotation, not ingress-nginx's.
    expect([...SUPPORTED_ANNOTATIONS].filter((name) => !names.includes(name))).toEqual([]);
  });

  it.each(INGRESS_NGINX_ANNOTATIONS.map((entry) => [entry.name, statusOf(entry)]))(
    'states for %s what parsing does: %s',
    (name, status) => {
      // A value no grammar accepts: a supported annotation reports its grammar, an unsupported one
      // its refusal or that it is ignored.
      const result = parseAnnotations({ [`${DEFAULT_ANNOTATION_PREFIX}/${name}`]: '\u0001' });
      const [problem] = result.problems;
      if (status === 'ignored') {
        expect(problem).toMatchObject({
          severity: 'warning',
          message: expect.stringContaining('is ignored'),
        });
        expect(result.annotations).toBeDefined();
      } else {
        const refused = expect.stringContaining('the Ingress is not served without it');
        expect(problem).toMatchObject({
          severity: 'error',
          message: status === 'refused' ? refused : expect.not.stringContaining('not supported'),
        });
        expect(result.annotations).toBeUndefined();
      }
    },
  );
});
