/**
 * Finding: one object stopped every tenant. Regex paths that JavaScript accepts but nginx's PCRE
 * refuses, and certificates whose keys nginx's OpenSSL refuses, made `nginx -t` fail: the whole
 * configuration was refused and retried forever, so no other change was served, endpoint changes
 * included, and after a controller restart nginx never started at all.
 *
 * Now each such object is refused on its own, by validation or by the data plane's own regex
 * engine, with an Event on it; a victim's endpoint change is served while they exist, and a
 * restarted controller serves the victims again.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerOf, startController } from '../harness.js';
import {
  expectVictimsUnharmed,
  moveVictimPods,
  useSecurityCase,
  expectTenantEvent,
  tenantRegexIngress,
  tenantTlsObjects,
} from './tenant.js';

const testCase = useSecurityCase('outage');

/**
 * Paths JavaScript compiles that PCRE refuses or reads otherwise, as the finding listed them, and
 * what the Event on each says: validation refuses the first four, nginx's own PCRE the last.
 */
const HOSTILE_REGEXES: Record<string, [path: string, event: string]> = {
  'empty-negated-class': ['/[^]', 'may not start a character class with "]"'],
  'huge-repeat': ['/a{65536}', 'may not repeat more than 65535 times'],
  'class-escape-range': ['/[\\d-z]', 'may only form a range in a character class'],
  'unknown-posix-class': ['/[[:foo:]]', 'POSIX classes'],
  'nested-groups': [`/${'('.repeat(251)}a${')'.repeat(251)}`, 'the data plane refused this route'],
};

/**
 * openssl key options of keys nginx's OpenSSL (security level 2) refuses to serve, and what the
 * Event on each says.
 */
const WEAK_KEYS: Record<string, [keyOptions: (dir: string) => string[], event: string]> = {
  'rsa-1024': [() => ['-newkey', 'rsa:1024'], 'has a 1024-bit RSA key'],
  'rsa-512': [() => ['-newkey', 'rsa:512'], 'has a 512-bit RSA key'],
  'dsa-1024': [
    (dir) => {
      const parameters = join(dir, 'dsa.param');
      execFileSync('openssl', ['dsaparam', '-out', parameters, '1024'], { stdio: 'ignore' });
      return ['-newkey', `dsa:${parameters}`];
    },
    'has a dsa key',
  ],
  'ec-112': [
    () => ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:secp112r1'],
    'has an EC key on secp112r1',
  ],
};

/** A tenant's TLS Secret and Ingress for `host`, with a self-signed certificate on a weak key. */
async function weakCertificateObjects(
  dir: string,
  name: string,
  host: string,
): Promise<Record<string, unknown>[]> {
  const keyFile = join(dir, `${name}.key`);
  const crtFile = join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...WEAK_KEYS[name]![0](dir),
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${host}`,
      '-keyout',
      keyFile,
      '-out',
      crtFile,
    ],
    { stdio: 'ignore' },
  );
  return tenantTlsObjects(name, host, {
    crt: await readFile(crtFile, 'utf8'),
    key: await readFile(keyFile, 'utf8'),
  });
}

describe('objects the data plane cannot run', () => {
  it('are refused one by one, and a victim whose pods moved is served meanwhile', async () => {
    const { cluster } = testCase();
    const dir = await mkdtemp(join(tmpdir(), 'ingresskit-security-'));
    const weak: Record<string, unknown>[] = [];
    for (const name of Object.keys(WEAK_KEYS))
      weak.push(...(await weakCertificateObjects(dir, name, `${name}.mallory.test`)));
    await rm(dir, { recursive: true, force: true });

    const traffic = testCase().probeVictims();
    await cluster.server.apply([
      ...Object.entries(HOSTILE_REGEXES).map(([name, [path]]) =>
        tenantRegexIngress(name, `${name}.mallory.test`, path),
      ),
      ...weak,
    ]);
    for (const [name, [, event]] of [...Object.entries(HOSTILE_REGEXES), ...Object.entries(WEAK_KEYS)]) {
      await expectTenantEvent(testCase(), name, event);
    }

    // Were endpoint changes held back by the tenant's objects, the probe would fail from here on.
    await moveVictimPods(testCase());
    await expectVictimsUnharmed(traffic, 'objects the data plane cannot run');
  }, 90_000);

  it('never keep a restarted controller from serving the victims', async () => {
    await testCase().controller.stop();
    testCase().controller = await startController(testCase().cluster.server, { podName: 'outage-restarted' });
    const { controller } = testCase();
    const health = await fetch(`http://127.0.0.1:${controller.healthzPort}/healthz`);
    expect(health.status).toBe(200);
    expect(await answerOf(controller, 'a.reliability.test')).toBe('alpha');
    expect(await answerOf(controller, 'b.reliability.test', '/api/items')).toBe('beta');
    expect(await answerOf(controller, 's.reliability.test', '/', true)).toBe('gamma');
    expect(await answerOf(controller, 'huge-repeat.mallory.test', '/aaaa')).toBe('404');
    await expectVictimsUnharmed(testCase().probeVictims(), 'after a restart');
  });
});
