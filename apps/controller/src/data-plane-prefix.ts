/**
 * The files of nginx's prefix directory: the Lua files, the control socket directory, the default
 * certificate, the TLS session ticket key, and nginx.conf, which is written only after `nginx -t`
 * accepts it.
 */
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  authSocketPathOf,
  createSelfSignedCertificate,
  hopSocketPathOf,
  listHttpSettingsFiles,
  listSettingsFiles,
  luaFiles,
  type Configuration,
} from '@ingresskit/nginx-template';
import { NginxConfigTestError } from './errors.js';
import { testNginxConfig } from './nginx-process.js';
import { confPathOf, controlSocketPathOf, defaultCertificatePathOf } from './data-plane-render-options.js';

/** A prepared prefix directory; a temporary one is the caller's to remove. */
export interface PreparedPrefix {
  prefix: string;
  isTemporary: boolean;
}

/**
 * Creates the prefix `requested` (a new temporary directory when undefined or empty) with the Lua
 * files, the control socket directory and a default certificate, keeping a certificate already there.
 */
export async function preparePrefix(requested: string | undefined): Promise<PreparedPrefix> {
  let prefix: string;
  let isTemporary = false;
  if (requested) {
    prefix = resolve(requested);
    await mkdir(prefix, { recursive: true });
  } else {
    prefix = await mkdtemp(join(tmpdir(), 'ingresskit-'));
    isTemporary = true;
  }
  // When the controller runs as root, nginx's workers run as nobody and must reach the temp
  // directories nginx creates in the prefix.
  await chmod(prefix, 0o755);
  for (const file of luaFiles) {
    const target = join(prefix, 'lua', file.relativePath);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file.path, target);
  }
  // The control socket lives where only the controller's user may enter: no route can name it.
  await mkdir(join(prefix, 'control'), { recursive: true, mode: 0o700 });
  await chmod(join(prefix, 'control'), 0o700);
  await mkdir(join(prefix, 'certs'), { recursive: true, mode: 0o700 });
  const defaultCertificate = defaultCertificatePathOf(prefix);
  if (
    !(await readFile(defaultCertificate).then(
      () => true,
      () => false,
    ))
  ) {
    const { certificatePem, privateKeyPem } = createSelfSignedCertificate({
      commonName: 'ingresskit default certificate',
    });
    await writeFile(defaultCertificate, `${certificatePem}${privateKeyPem}`, { mode: 0o600 });
  }
  return { prefix, isTemporary };
}

/**
 * Writes the files `configuration`'s nginx.conf reads (DH parameters, the TLS session ticket
 * key) into `prefix`. Their names are content hashes, so one already
 * there is left as it is.
 */
export async function writeConfigurationFiles(prefix: string, configuration: Configuration): Promise<void> {
  for (const file of listSettingsFiles(configuration.settings))
    await writeChangedFile(join(prefix, file.path), Buffer.from(file.content));
  // The ticket key is a secret: readable by nginx's master (the controller's user) only, and
  // removed once another replaces it (nginx holds the keys it loaded in memory).
  const keys = listHttpSettingsFiles(configuration.settings.http);
  for (const file of keys) await writeChangedFile(join(prefix, file.path), file.content, 0o600);
  const certs = join(prefix, 'certs');
  const current = new Set(keys.map((file) => join(prefix, file.path)));
  for (const name of await readdir(certs).catch(() => [])) {
    if (TICKET_KEY_FILE.test(name) && !current.has(join(certs, name))) await unlink(join(certs, name));
  }
}

const TICKET_KEY_FILE = /^session-ticket-[0-9a-f]{64}\.key$/;

/** Writes `content` to `path` through a new file renamed over it, unless it holds that already. */
async function writeChangedFile(path: string, content: Buffer, mode?: number): Promise<void> {
  if (
    await readFile(path).then(
      (old) => old.equals(content),
      () => false,
    )
  )
    return;
  await mkdir(dirname(path), { recursive: true });
  // A leftover of an interrupted write would keep its own mode.
  await rm(`${path}.new`, { force: true });
  await writeFile(`${path}.new`, content, mode === undefined ? {} : { mode });
  await rename(`${path}.new`, path);
}

/**
 * Writes `conf` as the nginx.conf of `prefix` once `nginx -t` accepts it; rejects with an
 * NginxConfigTestError otherwise, leaving the running nginx.conf as it was.
 */
export async function writeTestedConf(binary: string, prefix: string, conf: string): Promise<void> {
  const candidate = join(prefix, 'nginx.conf.new');
  await writeFile(candidate, conf);
  const test = await testNginxConfig(binary, prefix, candidate);
  if (!test.ok) {
    // Kept for whoever investigates; the next candidate overwrites it.
    await rename(candidate, join(prefix, 'nginx.conf.rejected')).catch(() => undefined);
    throw new NginxConfigTestError(test.output);
  }
  await rename(candidate, confPathOf(prefix));
}

/** Removes the unix sockets a killed nginx master leaves behind, which a new one cannot bind over. */
export async function removeStaleSockets(prefix: string): Promise<void> {
  const socketPath = controlSocketPathOf(prefix);
  await unlink(socketPath).catch(() => undefined);
  // The external auth and hop servers' sockets stay behind after a crash just the same.
  await unlink(authSocketPathOf(socketPath)).catch(() => undefined);
  await unlink(hopSocketPathOf(socketPath)).catch(() => undefined);
}
