/**
 * `ingresskit demo --exit-after-ready`: the embedded API server with examples/, backends, the
 * controller and real nginx; every route is checked with a real request, the summary printed,
 * everything stopped. And the demo without nginx: install hint plus the rendered configuration.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIo } from '../src/commands/command.js';
import { runCli } from '../src/commands/index.js';
import { NGINX_INSTALL_COMMAND } from '../src/nginx-process.js';
import { createTempDir, pickControllerPorts } from './harness.js';

let temp: { dir: string; remove: () => Promise<void> };

async function demo(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
    signal: new AbortController().signal,
    cwd: temp.dir,
  };
  const exitCode = await runCli(['demo', ...args], io);
  return { exitCode, stdout, stderr };
}

beforeAll(async () => {
  temp = await createTempDir();
});

afterAll(async () => {
  await temp?.remove();
});

describe('ingresskit demo', () => {
  it('serves the examples through nginx, checks every route, prints the summary and exits 0', async () => {
    const ports = await pickControllerPorts();
    const result = await demo(
      [
        `--http-port=${ports.httpPort}`,
        `--https-port=${ports.httpsPort}`,
        `--healthz-port=${ports.healthzPort}`,
      ],
      {
        INGRESSKIT_EXIT_AFTER_READY: 'true',
      },
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/Routing table \(what nginx serves now/);
    expect(out).toMatch(
      new RegExp(`ok +http://web\\.demo\\.test:${ports.httpPort}/ +expected 200 from backend web-\\*`),
    );
    expect(out).toMatch(new RegExp(`ok +https://api\\.demo\\.test:${ports.httpsPort}/v1 +expected 200`));
    expect(out).toMatch(/ok +http:\/\/playground\.demo\.test:\d+\/metrics/);
    expect(out).toMatch(/ok +http:\/\/broken\.demo\.test:\d+\/ +expected 404/);
    // examples/80-gateway.yaml: an HTTPRoute served by the same nginx, its /api prefix stripped.
    expect(out).toMatch(
      new RegExp(
        `ok +http://shop\\.gateway\\.demo\\.test:${ports.httpPort}/api +expected 200 from backend api-\\*`,
      ),
    );
    expect(out).toMatch(
      new RegExp(
        `ok +http://shop\\.gateway\\.demo\\.test:${ports.httpPort}/ +expected 200 from backend web-\\*`,
      ),
    );
    expect(out).not.toContain('FAIL');
    expect(out).toContain('Served without any class: demo/playground');
    expect(out).toContain('ingress-nginx would ignore it');
    expect(out).toMatch(/demo\/whoami: Ingress demo\/whoami is ignored/);
    expect(out).toMatch(
      /may be meant for this controller \(each also gets a Warning Event\):\n {2}demo\/typo: /,
    );
    expect(out).toMatch(/of other controllers \(no Event on their objects[^\n]*\n {2}demo\/whoami: /);
    expect(out).toMatch(/error in Ingress demo\/broken: .*proxy-read-timeout/s);
    expect(out).toContain(
      `curl --resolve web.demo.test:${ports.httpPort}:127.0.0.1 http://web.demo.test:${ports.httpPort}/`,
    );
    expect(out).toMatch(/kubectl --server http:\/\/127\.0\.0\.1:\d+ get ingressclasses,ingresses -A/);
    expect(out).toContain('kubectl --kubeconfig .ingresskit/demo/kubeconfig get events -n demo');
    expect(out).toContain('All checks passed.');
    const log = await readFile(join(temp.dir, '.ingresskit', 'demo', 'controller.log'), 'utf8');
    expect(log).toContain('first configuration applied');
    expect(log).toContain('"msg":"stopped"');
  }, 60_000);

  it('says how to install nginx and still renders the configuration when nginx is missing', async () => {
    const result = await demo(['--nginx-binary=/nonexistent/nginx', '--exit-after-ready']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(NGINX_INSTALL_COMMAND);
    expect(result.stdout).toContain('Routing table (what nginx would serve)');
    expect(result.stdout).toContain('demo/typo: Ingress demo/typo is ignored');
    const conf = await readFile(join(temp.dir, '.ingresskit', 'demo', 'nginx.conf'), 'utf8');
    expect(conf).toContain('rewrite_by_lua_block');
    expect(conf).not.toContain('web.demo.test');
    const routes = await readFile(join(temp.dir, '.ingresskit', 'demo', 'routes.yaml'), 'utf8');
    expect(routes).toContain('hostname: web.demo.test');
  });
});
