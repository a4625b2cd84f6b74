import { describe, expect, it } from 'vitest';
import { GATEWAY_API_PROBLEM_CODES, translateGatewayApi } from './index.js';
import { config, gateway, httpListener, httpRoute, pathMatch, rule, service } from './testing/fixtures.js';

describe('GATEWAY_API_PROBLEM_CODES', () => {
  it('names each code in kebab-case and says its severity first', () => {
    for (const [code, meaning] of Object.entries(GATEWAY_API_PROBLEM_CODES)) {
      expect(code).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
      expect(meaning).toMatch(/^(?:error|warning): /);
    }
  });

  it('holds the code of every problem of broken Gateways and HTTPRoutes, with the severity the list says', () => {
    const result = translateGatewayApi(
      {
        gateways: [
          gateway('gw', [
            httpListener('http'),
            httpListener('udp', { protocol: 'UDP', port: 8053 }),
            httpListener('elsewhere', { port: 8081 }),
            httpListener('plain-tls', { port: 80, hostname: 'tls.example.com', tls: { mode: 'Terminate' } }),
          ]),
        ],
        httpRoutes: [
          httpRoute('route', {
            hostnames: ['bad host!', 'ok.example.com'],
            rules: [
              rule([pathMatch('/')], ['missing']),
              rule([pathMatch('/x')], [{ kind: 'Pod', name: 'p', port: 80 }]),
            ],
          }),
        ],
        services: [service('app')],
        secrets: [],
        referenceGrants: [],
      },
      config,
    );
    const problems = [...result.problems];
    expect(problems.length).toBeGreaterThanOrEqual(5);
    for (const problem of problems) {
      expect(problem.code, problem.message).toBeDefined();
      const meaning: string =
        GATEWAY_API_PROBLEM_CODES[problem.code as keyof typeof GATEWAY_API_PROBLEM_CODES];
      expect(meaning.startsWith(`${problem.severity}: `), `${problem.code}: ${problem.message}`).toBe(true);
    }
    expect(new Set(problems.map((problem) => problem.code))).toEqual(
      new Set([
        'unsupported-protocol',
        'port-unavailable',
        'tls-ignored',
        'invalid-hostname',
        'backend-not-found',
        'invalid-backend-kind',
      ]),
    );
  });
});
