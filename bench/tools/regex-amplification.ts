/**
 * Regex amplification (issue #31, finding 5): what one request costs nginx on a host with 1,000
 * regex paths built to backtrack, and what a victim on another host waits meanwhile.
 *
 *   run: pnpm exec node --conditions=@ingresskit/source --import tsx bench/tools/regex-amplification.ts
 *
 * One nginx with 2 workers and the data plane's defaults. The tenant's host has 1,000 routes
 * `^/(a+)+b<i>` (case-insensitive, as an Ingress regex path); every attack request's path makes
 * each of them backtrack to the match limit. Prints the workers' CPU time (utime + stime from
 * /proc) per attack request over one connection, then a victim's latency on its own host, one
 * request after another, while 0, 4 and 8 attacker connections send attack requests. Bounded: a
 * few seconds per phase, 127.0.0.1 only.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import type { Route, RouteTable } from '@ingresskit/route-model';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
} from '../../packages/nginx-template/src/testing/data-plane.js';

const ATTACK_PATH = `/${'a'.repeat(26)}!b0123456789`;
const PHASE_MS = 4_000;

function tableOf(ports: { http: number; https: number }): RouteTable {
  const hostile: Route[] = Array.from({ length: 1_000 }, (_, index) =>
    createTestRoute(`r${index}`, {
      match: { path: { type: 'RegularExpression', value: `^/(a+)+b${index}`, ignoreCase: true } },
      action: { type: 'respond', statusCode: 200, body: 'evil' },
    }),
  );
  const victim = createTestRoute('victim', { action: { type: 'respond', statusCode: 200, body: 'victim' } });
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      { hostname: 'evil.test', hostnameMatch: 'exact', routes: hostile },
      { hostname: 'victim.test', hostnameMatch: 'exact', routes: [victim] },
    ],
    tls: [],
    certificates: [],
    backends: [],
  };
}

function send(port: number, agent: Agent, host: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path, agent, headers: { host } }, (response) => {
      response.resume();
      response.on('end', () => resolve());
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** CPU seconds (user + system) the processes have used. */
function cpuSeconds(pids: number[]): number {
  const ticks = pids.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return sum + Number(fields[11]) + Number(fields[12]);
  }, 0);
  return ticks / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

async function main(): Promise<void> {
  const ports = await allocateListenerPorts();
  const table = tableOf(ports);
  const plane = await startDataPlane({ table, ports, workers: 2, render: { exposeRouteId: false } });
  try {
    const pushed = await plane.push(table);
    if (pushed.status !== 201) throw new Error(`push failed: ${JSON.stringify(pushed.json)}`);
    const workers = await plane.nginx.workerPids();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await send(ports.http, agent, 'evil.test', ATTACK_PATH);
    const before = cpuSeconds(workers);
    let count = 0;
    const deadline = Date.now() + PHASE_MS;
    while (Date.now() < deadline) {
      await send(ports.http, agent, 'evil.test', ATTACK_PATH);
      count++;
    }
    const perRequest = (cpuSeconds(workers) - before) / count;
    agent.destroy();
    console.log(`nginx CPU per attack request: ${(perRequest * 1000).toFixed(2)} ms (${count} requests)`);

    for (const attackers of [0, 4, 8]) {
      const stop = Date.now() + PHASE_MS;
      const attackAgent = new Agent({ keepAlive: true, maxSockets: Math.max(attackers, 1) });
      const attacks = Array.from({ length: attackers }, async () => {
        while (Date.now() < stop) await send(ports.http, attackAgent, 'evil.test', ATTACK_PATH);
      });
      const victimAgent = new Agent({ keepAlive: true, maxSockets: 1 });
      const latencies: number[] = [];
      while (Date.now() < stop) {
        const start = performance.now();
        await send(ports.http, victimAgent, 'victim.test', '/');
        latencies.push(performance.now() - start);
      }
      await Promise.all(attacks);
      attackAgent.destroy();
      victimAgent.destroy();
      latencies.sort((a, b) => a - b);
      console.log(
        `victim with ${attackers} attacker connections: ${latencies.length} requests, ` +
          `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, ` +
          `max ${latencies[latencies.length - 1]!.toFixed(1)} ms`,
      );
    }
  } finally {
    await plane.stop();
  }
}

await main();
