/**
 * Finding: the tenant filled nginx's shared memory with TLS Secrets (about 690 kB of certificate
 * each; 400 of them filled the default 256m whatever --max-paths-per-namespace said). Every push
 * then failed as a whole, so the victims' endpoint moves were not applied (502), and no Event said
 * why.
 *
 * Now what each Ingress's routes, policies and certificates take is counted before anything is
 * pushed, and a namespace may fill only its part of the memory (--max-namespace-dict-share): the
 * tenant's oldest Ingresses are served, the others are left out with an Event naming the budget,
 * and the victims' changes are pushed as before. A chain of more than 10 certificates or 128 KiB
 * is refused before it is parsed. The memory here is 4m, so that 40 Secrets of about 100 kB fill
 * it, as 400 of 690 kB filled 256m.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerOf, eventually } from '../harness.js';
import {
  expectTenantEvent,
  expectVictimsUnharmed,
  moveVictimPods,
  tenantTlsObjects,
  useSecurityCase,
} from './tenant.js';

const testCase = useSecurityCase('shared-memory', { luaSharedDictSize: '4m' });

const SECRETS = 40;
/** Names on each certificate besides its host: about 100 kB of PEM, under the 128 KiB a chain may take. */
const EXTRA_NAMES = 2_700;

const nameOf = (index: number) => `big-${String(index).padStart(2, '0')}`;

/** A self-signed certificate for `host` with EXTRA_NAMES more names, on the EC key in `dir`. */
async function largeCertificate(dir: string, host: string): Promise<{ crt: string; key: string }> {
  const keyFile = join(dir, 'tenant.key');
  const configFile = join(dir, `${host}.cnf`);
  const names = [host, ...Array.from({ length: EXTRA_NAMES }, (_, index) => `n${index}.${host}`)];
  await writeFile(
    configFile,
    [
      '[req]',
      'distinguished_name = dn',
      'x509_extensions = ext',
      'prompt = no',
      '[dn]',
      `CN = ${host}`,
      '[ext]',
      `subjectAltName = ${names.map((name) => `DNS:${name}`).join(',')}`,
    ].join('\n'),
  );
  const crtFile = join(dir, `${host}.crt`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-key', keyFile, '-days', '2', '-config', configFile, '-out', crtFile],
    { stdio: 'ignore' },
  );
  return { crt: await readFile(crtFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
}

describe("a tenant's large TLS Secrets", () => {
  it("fill only the tenant's part of nginx's memory, and a victim whose pods moved is served meanwhile", async () => {
    const { cluster } = testCase();
    const dir = await mkdtemp(join(tmpdir(), 'ingresskit-security-'));
    execFileSync('openssl', [
      'ecparam',
      '-name',
      'prime256v1',
      '-genkey',
      '-noout',
      '-out',
      join(dir, 'tenant.key'),
    ]);
    const objects: Record<string, unknown>[] = [];
    for (let index = 0; index < SECRETS; index++) {
      const certificate = await largeCertificate(dir, `${nameOf(index)}.mallory.test`);
      expect(certificate.crt.length).toBeGreaterThan(90_000);
      objects.push(...tenantTlsObjects(nameOf(index), `${nameOf(index)}.mallory.test`, certificate));
    }
    // A chain of 580 small certificates, as the finding had: refused before it is parsed.
    const keyPem = await readFile(join(dir, 'tenant.key'), 'utf8');
    const small = execFileSync(
      'openssl',
      ['req', '-x509', '-key', join(dir, 'tenant.key'), '-days', '2', '-subj', '/CN=chain.mallory.test'],
      { encoding: 'utf8' },
    );
    objects.push(...tenantTlsObjects('chain', 'chain.mallory.test', { crt: small.repeat(580), key: keyPem }));
    await rm(dir, { recursive: true, force: true });

    const traffic = testCase().probeVictims();
    await cluster.server.apply(objects);
    // Meanwhile the victim's pods move. Were the pushes failing on a full memory, the probe
    // would fail from then on.
    await moveVictimPods(testCase());

    await expectTenantEvent(
      testCase(),
      nameOf(SECRETS - 1),
      'which would take namespace mallory past its part of it',
    );
    await expectTenantEvent(testCase(), 'chain', 'a certificate chain may take at most 128 KiB');
    // Ties of creation time go by name: the first Secrets are served, the last left out.
    await eventually(async () => {
      expect(await answerOf(testCase().controller, `${nameOf(0)}.mallory.test`, '/', true)).toBe('evil');
      expect(await answerOf(testCase().controller, `${nameOf(SECRETS - 1)}.mallory.test`, '/', true)).toBe(
        '404',
      );
    });
    const status = await testCase().controller.dataPlane.readStatus();
    // The part handed out is three quarters of the memory: what the tenant filled stays within it.
    expect(status!.sharedDictFree).toBeGreaterThan(status!.sharedDictCapacity / 4);
    await expectVictimsUnharmed(traffic, "a tenant's large TLS Secrets");
  }, 120_000);
});
