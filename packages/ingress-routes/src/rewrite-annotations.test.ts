import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function parse(name: string, value: unknown) {
  return parseAnnotations({ [`${P}${name}`]: value });
}

describe('rewrite-target (parseAnnotations)', () => {
  it('parses rewrite-target capture references together with use-regex', () => {
    const result = parseAnnotations({ [`${P}rewrite-target`]: '/$2/x$1', [`${P}use-regex`]: 'true' });
    expect(result.annotations?.rewriteTarget).toBe('/$2/x$1');
  });

  it('refuses rewrite-target capture references without use-regex', () => {
    const result = parse('rewrite-target', '/$1');
    expect(result.annotations).toBeUndefined();
    expect(result.problems[0]?.message).toContain('need use-regex');
  });
});
