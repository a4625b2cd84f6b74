/**
 * Test-only helpers (not exported from index.ts): a throwaway nginx prefix with the Lua files, a
 * default certificate and a root-only control directory; `nginx -t`; a real nginx started in the
 * foreground and stopped for good; free ports; HTTP(S) requests; requests to the control socket.
 * nginx runs from Debian's package.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type Agent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { luaFiles } from '../lua-files.js';
import { createSelfSignedCertificate } from '../self-signed-certificate.js';

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
  /** Absolute path for the controlSocketPath option, in a 0700 directory. */
  socketPath: string;
  /** CN of the default certificate written to `certs/default.pem` (the option's default). */
  defaultCommonName: string;
  /** Replaces nginx.conf. */
  writeConf(text: string): Promise<void>;
  /** Deletes the directory. */
  remove(): Promise<void>;
}

/**
 * Creates a prefix holding the shipped Lua files under `lua/`, a self-signed default certificate
 * at `certs/default.pem` and a root-only `control/` directory for the socket. The prefix itself
 * is world-readable: when tests run as root, nginx's workers run as `nobody` and must reach the
 * temp directories nginx creates inside it.
 */
export async function createNginxPrefix(conf?: string): Promise<NginxPrefix> {
  const dir = await mkdtemp(join(tmpdir(), 'ik-nginx-'));
  await chmod(dir, 0o755);
  for (const file of luaFiles) {
    const target = join(dir, 'lua', file.relativePath);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file.path, target);
  }
  await mkdir(join(dir, 'control'), { mode: 0o700 });
  await mkdir(join(dir, 'certs'), { mode: 0o700 });
  const defaultCommonName = 'ingresskit-default';
  const certificate = createSelfSignedCertificate({ commonName: defaultCommonName });
  await writeFile(join(dir, 'certs', 'default.pem'), certificate.certificatePem + certificate.privateKeyPem, {
    mode: 0o600,
  });
  const confPath = join(dir, 'nginx.conf');
  const prefix: NginxPrefix = {
    dir,
    confPath,
    socketPath: join(dir, 'control', 'ingresskit.sock'),
    defaultCommonName,
    writeConf: (text) => writeFile(confPath, text),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  if (conf !== undefined) await prefix.writeConf(conf);
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
  /** SHA-256 fingerprint of the server certificate, as X509Certificate.fingerprint256 (TLS only). */
  peerFingerprint?: string;
}

/** Options of sendRequest. */
export interface TestRequest {
  port: number;
  host: string;
  path?: string;
  method?: string;
  body?: string | Buffer;
  tls?: boolean;
  /** SNI name for TLS; default `host`; null sends none. */
  servername?: string | null;
  headers?: Record<string, string | string[]>;
  /** A keep-alive agent; default a new connection closed after the response. */
  agent?: Agent;
  /** Send the body in chunks (Transfer-Encoding: chunked) instead of with a Content-Length. */
  chunked?: boolean;
}

/** One HTTP(S) request to 127.0.0.1 with the given Host (and SNI name for TLS). */
export function sendRequest(options: TestRequest): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { host: options.host, ...options.headers };
    if (options.agent === undefined) headers.connection = 'close';
    const common = {
      host: '127.0.0.1',
      port: options.port,
      path: options.path ?? '/',
      method: options.method ?? 'GET',
      headers,
      agent: options.agent ?? (false as const),
    };
    const onResponse = (response: IncomingMessage) => {
      // Read the certificate now: once the response ends the socket may be gone.
      const socket = response.socket as {
        getPeerCertificate?: () => { subject?: { CN?: string }; fingerprint256?: string };
      };
      const peer = socket.getPeerCertificate?.();
      const commonName = peer?.subject?.CN;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const result: TestResponse = {
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        if (commonName !== undefined) result.peerCommonName = commonName;
        if (peer?.fingerprint256 !== undefined) result.peerFingerprint = peer.fingerprint256;
        resolve(result);
      });
      response.on('error', reject);
    };
    const servername = options.servername === undefined ? options.host : options.servername;
    const request = options.tls
      ? httpsRequest(
          // An empty servername is how Node sends no SNI (it would take the Host header otherwise).
          { ...common, servername: servername ?? '', rejectUnauthorized: false },
          onResponse,
        )
      : httpRequest(common, onResponse);
    request.setTimeout(10_000, () => request.destroy(new Error('request timed out')));
    request.on('error', reject);
    if (options.chunked === true && options.body !== undefined) {
      request.write(options.body);
      request.end();
    } else {
      if (options.body !== undefined) request.setHeader('content-length', Buffer.byteLength(options.body));
      request.end(options.body);
    }
  });
}

/** A request to the control socket; the body is parsed as JSON when it is JSON. */
export function sendControlRequest(
  socketPath: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; json: unknown; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ socketPath, method, path, headers: { host: 'localhost' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, json, text });
      });
      response.on('error', reject);
    });
    request.setTimeout(30_000, () => request.destroy(new Error('control request timed out')));
    request.on('error', reject);
    if (body !== undefined) request.setHeader('content-length', Buffer.byteLength(body));
    request.end(body);
  });
}
