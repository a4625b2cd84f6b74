import { describe, expect, it } from 'vitest';
import { INGRESS_PROBLEM_CODES, translateIngress } from './index.js';
import { ingress, path, secrets } from './testing/fixtures.js';

describe('INGRESS_PROBLEM_CODES', () => {
  it('names each code in kebab-case and says its severity first', () => {
    for (const [code, meaning] of Object.entries(INGRESS_PROBLEM_CODES)) {
      expect(code).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
      expect(meaning).toMatch(/^(?:error|warning): /);
    }
  });

  it('holds the code of every problem a broken Ingress gets, with the severity the list says', () => {
    const broken = [
      ingress('Bad_Name', { 'a.example.com': [path('/', 'Prefix', 'app')] }),
      ingress(
        'annotations',
        { 'a.example.com': [path('/', 'Prefix', 'app')] },
        {
          annotations: {
            'nginx.ingress.kubernetes.io/proxy-read-timeout': 'soon',
            'nginx.ingress.kubernetes.io/server-snippet': 'return 200;',
            'nginx.ingress.kubernetes.io/no-such-annotation': 'x',
            'nginx.ingress.kubernetes.io/cors-max-age': '600',
          },
        },
      ),
      ingress(
        'rules',
        {
          'bad host!': [path('/', 'Prefix', 'app')],
          'b.example.com': [
            path('relative', 'Prefix', 'app'),
            path('/', 'Sometimes', 'app'),
            path('/x', 'Prefix', 'Bad_Service'),
          ],
        },
        { tls: [{ hosts: ['b.example.com'], secretName: 'missing' }] },
      ),
    ];
    const problems = broken.flatMap((object) => translateIngress(object, secrets()).problems);
    expect(problems.length).toBeGreaterThanOrEqual(8);
    for (const problem of problems) {
      expect(problem.code, problem.message).toBeDefined();
      const meaning: string = INGRESS_PROBLEM_CODES[problem.code as keyof typeof INGRESS_PROBLEM_CODES];
      expect(meaning.startsWith(`${problem.severity}: `), `${problem.code}: ${problem.message}`).toBe(true);
    }
    expect(new Set(problems.map((problem) => problem.code))).toEqual(
      new Set([
        'invalid-name',
        'invalid-annotation',
        'refused-annotation',
        'unsupported-annotation',
        'annotation-without-effect',
        'invalid-host',
        'invalid-path',
        'invalid-path-type',
        'invalid-backend',
        'tls-secret-unusable',
      ]),
    );
  });
});
