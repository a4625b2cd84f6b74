/**
 * Test-only helpers (not exported from index.ts): a throwaway nginx prefix with the rendered
 * config, the Lua files and the certificates; `nginx -t`; a real nginx started in the foreground
 * and stopped for good; free ports; plain HTTP(S) requests. nginx runs from Debian's package.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { luaFiles } from '../lua-files.js';
import type { Certificate } from '../types.js';

const execFileAsync = promisify(execFile);

/** The nginx binary; Debian installs it in /usr/sbin, which is not always on a test's PATH. */
export const NGINX_BINARY = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';

/** Returns a TCP port on 127.0.0.1 that was free a moment ago. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A temporary nginx prefix directory. */
export interface NginxPrefix {
  dir: string;
  confPath: string;
  /** Replaces nginx.conf. */
  writeConf(text: string): Promise<void>;
  /** Writes certificate files into `<dir>/certs`. */
  writeCertificates(certificates: readonly Pick<Certificate, 'fileName' | 'pem'>[]): Promise<void>;
  /** Deletes the directory. */
  remove(): Promise<void>;
}

/**
 * Creates a prefix holding nginx.conf, the shipped Lua files under `lua/` and the certificates
 * under `certs/`. The directory is made world-readable: when the tests run as root, nginx's
 * workers run as `nobody` and must reach the temp directories nginx creates inside it.
 */
export async function createNginxPrefix(
  conf: string,
  certificates: readonly Pick<Certificate, 'fileName' | 'pem'>[] = [],
): Promise<NginxPrefix> {
  const dir = await mkdtemp(join(tmpdir(), 'ingresskit-nginx-'));
  await chmod(dir, 0o755);
  for (const file of luaFiles) {
    const target = join(dir, 'lua', file.relativePath);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file.path, target);
  }
  const confPath = join(dir, 'nginx.conf');
  const prefix: NginxPrefix = {
    dir,
    confPath,
    writeConf: (text) => writeFile(confPath, text),
    async writeCertificates(list) {
      await mkdir(join(dir, 'certs'), { recursive: true, mode: 0o700 });
      for (const certificate of list) {
        await writeFile(join(dir, 'certs', certificate.fileName), certificate.pem, { mode: 0o600 });
      }
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  await prefix.writeConf(conf);
  await prefix.writeCertificates(certificates);
  return prefix;
}

/** Runs `nginx -t` on the prefix's nginx.conf; ok with nginx's output either way. */
export async function testNginxConf(prefix: NginxPrefix): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(
      NGINX_BINARY,
      ['-t', '-p', prefix.dir, '-c', prefix.confPath],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr ?? failure.message}` };
  }
}

/** A running nginx master. */
export interface NginxProcess {
  masterPid: number;
  /** PIDs of the current worker processes. */
  workerPids(): Promise<number[]>;
  /** Sends SIGHUP (a reload) and waits until a new generation of workers replaced the old. */
  reload(): Promise<void>;
  /** Stops nginx (SIGQUIT, then SIGKILL after a grace period) and waits for the master to exit. */
  stop(): Promise<void>;
  /** What nginx wrote to error.log so far (for failing assertions). */
  errorLog(): Promise<string>;
}

async function readChildren(pid: number): Promise<number[]> {
  try {
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return text
      .trim()
      .split(/\s+/)
      .filter((entry) => entry !== '')
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    const { stdout } = await execFileAsync('ps', ['-o', 'pid=', '--ppid', String(pid)]);
    return stdout
      .trim()
      .split(/\s+/)
      .filter((entry) => entry !== '')
      .map(Number)
      .sort((a, b) => a - b);
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts nginx in the foreground (`daemon off`) so the child is the master, and resolves once its
 * workers run. Always pair with stop() in afterAll.
 */
export async function startNginx(prefix: NginxPrefix, workers = 1): Promise<NginxProcess> {
  const child = spawn(NGINX_BINARY, ['-p', prefix.dir, '-c', prefix.confPath, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const masterPid = child.pid;
  if (masterPid === undefined) throw new Error('nginx did not start');
  const errorLog = async () => {
    const log = await readFile(join(prefix.dir, 'error.log'), 'utf8').catch(() => '');
    return `${stderr}${log}`;
  };
  try {
    await waitFor('nginx workers', async () => {
      if (child.exitCode !== null)
        throw new Error(`nginx exited with ${child.exitCode}: ${await errorLog()}`);
      const children = await readChildren(masterPid);
      return children.length >= workers ? children : undefined;
    });
  } catch (error) {
    child.kill('SIGKILL');
    await waitForExit(child);
    throw error;
  }
  return {
    masterPid,
    workerPids: () => readChildren(masterPid),
    async reload() {
      const before = new Set(await readChildren(masterPid));
      child.kill('SIGHUP');
      await waitFor('new nginx workers', async () => {
        const now = await readChildren(masterPid);
        return now.length >= workers && now.every((pid) => !before.has(pid)) ? now : undefined;
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = waitForExit(child);
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
    errorLog,
  };
}

/** A response read in full. */
export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Subject CN of the server certificate (TLS only). */
  peerCommonName?: string;
}

/** One HTTP(S) request to 127.0.0.1 with the given Host (and SNI name for TLS); no keep-alive. */
export function sendRequest(options: {
  port: number;
  host: string;
  path?: string;
  method?: string;
  body?: string;
  tls?: boolean;
  headers?: Record<string, string>;
}): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const common = {
      host: '127.0.0.1',
      port: options.port,
      path: options.path ?? '/',
      method: options.method ?? 'GET',
      headers: { host: options.host, connection: 'close', ...options.headers },
      agent: false as const,
    };
    const onResponse = (response: IncomingMessage) => {
      // Read the certificate now: once the response ends the socket may be gone.
      const socket = response.socket as { getPeerCertificate?: () => { subject?: { CN?: string } } };
      const commonName = socket.getPeerCertificate?.()?.subject?.CN;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        const result: TestResponse = { status: response.statusCode ?? 0, headers: response.headers, body };
        if (commonName !== undefined) result.peerCommonName = commonName;
        resolve(result);
      });
      response.on('error', reject);
    };
    const request = options.tls
      ? httpsRequest({ ...common, servername: options.host, rejectUnauthorized: false }, onResponse)
      : httpRequest(common, onResponse);
    request.setTimeout(10_000, () => request.destroy(new Error('request timed out')));
    request.on('error', reject);
    request.end(options.body);
  });
}
