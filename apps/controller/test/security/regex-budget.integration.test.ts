/**
 * Finding: 1,000 regex paths on one host, each stopped only by the per-match limit, cost nginx
 * 0.26–0.55 s of CPU per request: nginx tried them one by one, and every tenant's requests wait
 * for the worker meanwhile (victim latency up to 1.8–10 s with 4–8 attacker connections).
 *
 * Now a host's regex paths are matched together, one PCRE match (one match limit) per group of
 * them, so the 1,000 paths cost a request a few match limits; and a host whose regexes would
 * need more than `--max-regex-matches-per-request` matches serves its oldest Ingresses up to it,
 * the one that would pass it left out with an Event. The cost is read from nginx's own
 * `$request_time` of the attack requests, never from a clock of the test.
 */
import { readFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerOf, eventually } from '../harness.js';
import { expectTenantEvent, expectVictimsUnharmed, tenantIngress, useSecurityCase } from './tenant.js';

const HOST = 'regex.mallory.test';
const ATTACKER = 'regex-budget-attacker';

const testCase = useSecurityCase('regex-budget', { accessLog: true, maxRegexMatchesPerRequest: 4 });

/**
 * A tenant's Ingress with `count` regex paths `/(a+)+<letter><index>` on HOST (nested quantifiers
 * that backtrack exponentially on `/aaa…a!` before they fail), and `evil` as its default backend.
 */
function hostileIngress(name: string, letter: string, count: number): Record<string, unknown> {
  const ingress = tenantIngress(name, { host: HOST, service: 'evil' });
  (ingress.metadata as { annotations?: Record<string, string> }).annotations = {
    'nginx.ingress.kubernetes.io/use-regex': 'true',
  };
  const rule = (ingress.spec as { rules: { http: { paths: Record<string, unknown>[] } }[] }).rules[0]!;
  // Requests no path matches go to `evil` too: the default backend's 404s are not logged.
  (ingress.spec as Record<string, unknown>).defaultBackend = {
    service: { name: 'evil', port: { number: 80 } },
  };
  rule.http.paths = Array.from({ length: count }, (_, index) => ({
    path: `/(a+)+${letter}${index}`,
    pathType: 'ImplementationSpecific',
    backend: { service: { name: 'evil', port: { number: 80 } } },
  }));
  return ingress;
}

/**
 * The path that makes every one of those patterns backtrack to the match limit: each pattern's
 * last literal (a digit, which PCRE looks for before matching) is in it, its `b` never follows
 * the a's.
 */
const ATTACK_PATH = `/${'a'.repeat(26)}!b0123456789`;

/** Sends `count` attack requests over `connections` keep-alive connections. */
async function attack(port: number, connections: number, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const sent = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: ATTACK_PATH,
          agent,
          headers: { host: HOST, 'user-agent': ATTACKER },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve());
        },
      );
      sent.on('error', reject);
      sent.end();
    });
  try {
    const workers = Array.from({ length: connections }, async (_, worker) => {
      for (let index = worker; index < count; index += connections) await send();
    });
    await Promise.all(workers);
  } finally {
    agent.destroy();
  }
}

/** nginx's `$request_time` (seconds) of every attack request in the access log. */
async function attackRequestTimes(prefix: string): Promise<number[]> {
  const log = await readFile(join(prefix, 'access.log'), 'utf8');
  const times: number[] = [];
  for (const line of log.split('\n')) {
    const match = new RegExp(`"${ATTACKER}" ([0-9.]+) `).exec(line);
    if (match !== null) times.push(Number(match[1]));
  }
  return times;
}

describe("a tenant's 1,000 regex paths built to backtrack", () => {
  it('cost a request a few match limits, and a host past the regex budget is refused with an Event', async () => {
    const { cluster, controller } = testCase();
    const traffic = testCase().probeVictims();

    await cluster.server.apply(hostileIngress('backtrack', 'b', 1_000));
    await eventually(async () => expect(await answerOf(controller, HOST, '/aab7')).toBe('evil'), 30_000);

    // 4 attacker connections, 60 requests.
    await attack(controller.config.httpPort, 4, 60);
    const times = await eventually(async () => {
      const logged = await attackRequestTimes(controller.dataPlane.prefix);
      expect(logged).toHaveLength(60);
      return logged;
    });
    times.sort((a, b) => a - b);
    console.log(
      `attack requests, nginx $request_time: median ${times[30]} s, max ${times[59]} s (1,000 regex paths)`,
    );
    // One by one, the paths took 0.26 s or more per request; three groups take a few milliseconds.
    expect(times[30]).toBeLessThanOrEqual(0.02);

    // With a second Ingress of 1,000 such paths the host would need 5 groups, past the budget of
    // 4: the younger Ingress is left out of it, and the older one keeps serving.
    await cluster.server.apply(hostileIngress('more', 'c', 1_000));
    await expectTenantEvent(
      testCase(),
      'more',
      'host regex.mallory.test: its regex paths and conditions would need up to 5 regex matches per request (5 to choose a route, 0 for the chosen one), more than the 4 this controller runs',
    );
    expect(await answerOf(controller, HOST, '/aab7')).toBe('evil');

    await expectVictimsUnharmed(traffic, 'regex amplification');
  }, 120_000);
});
