import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultFlags, envVarOf } from '../flags.js';
import { runCliCaptured } from '../../test/cli-capture.js';
import { commands } from './index.js';

const examples = fileURLToPath(new URL('../../../../examples', import.meta.url));

function run(argv: string[], env: Record<string, string> = {}) {
  return runCliCaptured(argv, { env });
}

describe('runCli', () => {
  it('prints the command list and exits 0 when asked for help', async () => {
    for (const argv of [[], ['help'], ['--help'], ['-h']]) {
      const result = await run(argv);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/^Usage: ingresskit <command>/);
      for (const command of commands) expect(result.stdout).toContain(command.name);
    }
  });

  it('prints every flag of a command with its default when asked for its help', async () => {
    for (const command of commands) {
      for (const argv of [
        [...command.name.split(' '), '--help'],
        ['help', ...command.name.split(' ')],
      ]) {
        const result = await run(argv);
        expect(result.exitCode).toBe(0);
        for (const flag of command.spec.flags) {
          const value = command.spec.defaults?.[flag] ?? defaultFlags()[flag];
          const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
          expect(result.stdout).toContain(`--${flag}`);
          expect(result.stdout).toContain(`default: ${shown}   env: ${envVarOf(flag)}`);
        }
      }
    }
  });

  it('exits 2 and names the command when the command is unknown', async () => {
    const result = await run(['frobnicate']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
  });

  it('exits 2 and asks for the subcommand when checksum has none', async () => {
    const result = await run(['checksum']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('publish');
  });

  it('exits 2 and names the flag when a flag is unknown or its value invalid', async () => {
    const unknown = await run(['run', '--http-prot=80']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('unknown flag --http-prot');
    expect(unknown.stderr).toContain('ingresskit run --help');
    const invalid = await run(['run', '--healthz-port=0']);
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toContain('--healthz-port must be a port number');
    const fromEnv = await run(['run'], { INGRESSKIT_ELECTION_TTL: '-1' });
    expect(fromEnv.exitCode).toBe(2);
    expect(fromEnv.stderr).toContain('$INGRESSKIT_ELECTION_TTL');
  });

  it('exits 2 when flags parse but cannot work together', async () => {
    const samePorts = await run(['run', '--http-port=8080', '--https-port=8080']);
    expect(samePorts.exitCode).toBe(2);
    expect(samePorts.stderr).toContain('--http-port and --https-port must differ');
    const backend = await run(['run', '--default-backend-service=oops']);
    expect(backend.exitCode).toBe(2);
    expect(backend.stderr).toContain('--default-backend-service must be NAMESPACE/NAME');
  });

  it('exits 2 when explain gets no Ingress or a malformed one', async () => {
    expect((await run(['explain'])).exitCode).toBe(2);
    const malformed = await run(['explain', 'ingress', 'no-namespace']);
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toContain('NAMESPACE/NAME');
  });

  it('exits 2 when render has no --manifests or checksum publish no --namespace', async () => {
    const render = await run(['render']);
    expect(render.exitCode).toBe(2);
    expect(render.stderr).toContain('--manifests is required');
    const publish = await run(['checksum', 'publish']);
    expect(publish.exitCode).toBe(2);
    expect(publish.stderr).toContain('--namespace is required');
  });

  it('prints a constant nginx.conf, the route table and the problems of the examples, exiting 1 for the broken Ingress', async () => {
    const result = await run(['render', '--manifests', examples, '--http-port=8080', '--https-port=8443']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/^# nginx\.conf rendered by @ingresskit\/nginx-template/);
    const [nginxConf, routeTable] = result.stdout.split('# --- route table');
    expect(nginxConf).toContain('listen "8443" ssl http2');
    // Hosts and paths travel as data, never in nginx.conf.
    expect(nginxConf).not.toContain('demo.test');
    expect(routeTable).toContain('#   - hostname: web.demo.test');
    expect(routeTable).not.toContain('broken.demo.test');
    expect(routeTable).not.toContain('BEGIN PRIVATE KEY');
    expect(result.stderr).toContain('served demo/playground: http://playground.demo.test/metrics');
    expect(result.stderr).toContain('ignored: Ingress demo/whoami is ignored');
    expect(result.stderr).toMatch(/error: Ingress demo\/broken .*proxy-read-timeout.*\(value "forever"\)/);
  });

  it('prints one JSON document when render is asked for json, and the route table alone as YAML', async () => {
    // The examples' backends run on 127.0.0.1, beside the demo's controller.
    const result = await run([
      'render',
      '--manifests',
      examples,
      '--output=json',
      '--allow-local-backend-addresses',
    ]);
    const parsed = JSON.parse(result.stdout);
    expect(parsed.nginxConf).toContain('rewrite_by_lua_block');
    expect(parsed.routeTable.virtualHosts.map((host: { hostname: string }) => host.hostname)).toContain(
      'api.demo.test',
    );
    expect(parsed.ignored.map((entry: { ingress: string }) => entry.ingress).sort()).toEqual([
      'demo/typo',
      'demo/whoami',
    ]);
    expect(parsed.problems).toHaveLength(1);
    const strict = JSON.parse((await run(['render', '--manifests', examples, '--output=json'])).stdout);
    expect(strict.problems.map((problem: { message: string }) => problem.message)).toContainEqual(
      expect.stringContaining('127.0.0.1 is a loopback address'),
    );
    const yaml = await run(['render', '--manifests', examples, '--output=yaml']);
    expect(yaml.stdout).toMatch(/^listeners:/);
    expect(yaml.stdout).toContain('privateKeyPem: (private key not shown)');
  });

  it('exits 2 with a message when render reads a directory that does not exist', async () => {
    const result = await run(['render', '--manifests', '/nonexistent/manifests']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('/nonexistent/manifests does not exist');
  });
});
