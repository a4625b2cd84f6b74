/**
 * ingress-nginx's client certificate authentication (auth-tls-*) end to end (local API server,
 * the controller, nginx, real TLS with client certificates made by openssl): each verify-client
 * mode with a certificate of the CA, one of another CA and none; the certificate and verdict
 * headers the backend receives; the error page; auth-tls-match-cn; a Host that differs from the
 * TLS server name; plain HTTP; TLS sessions that are not resumed across hosts; a CA Secret that
 * appears and changes, served without a reload.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import {
  endpointSliceManifest,
  eventually,
  ingressManifest,
  opaqueSecretManifest,
  tlsSecretManifest,
} from './harness.js';
import { useCertificateMaker, type CertificatePair } from './openssl-certificates.js';

const certificates = useCertificateMaker();
const caA = certificates.selfSigned('ca-a', '/CN=Client CA A');
const caB = certificates.selfSigned('ca-b', '/CN=Client CA B');
const alice = certificates.signedBy(caA, 'alice', '/O=staff/CN=alice');
const carol = certificates.signedBy(caA, 'carol', '/O=staff/CN=carol');
const bob = certificates.signedBy(caB, 'bob', '/CN=bob');
const mallory = certificates.selfSigned('mallory', '/CN=mallory');

function caSecret(
  name: string,
  ca: CertificatePair,
  extra: Record<string, string> = {},
): Record<string, unknown> {
  return opaqueSecretManifest(name, { 'ca.crt': ca.cert, ...extra });
}

/** `ingress` with a TLS entry for its one host from Secret `secretName`. */
function withTls(ingress: Record<string, unknown>, secretName: string): Record<string, unknown> {
  const spec = ingress.spec as { rules: { host: string }[] };
  return { ...ingress, spec: { ...spec, tls: [{ hosts: [spec.rules[0]!.host], secretName }] } };
}

function guarded(host: string, annotations: Record<string, string>) {
  return annotatedIngress(host, 'headers', annotations);
}

const testCase = useAnnotationsCase({
  config: { podName: 'auth-tls' },
  readyHost: 'open.test',
  objects: async ({ listen }) => {
    // Answers with the ssl-client-* headers it received, as JSON.
    const port = await listen((request, response) => {
      const seen = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name.startsWith('ssl-client-')),
      );
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(seen));
    });
    return [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'headers', namespace: 'default' },
        spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      },
      endpointSliceManifest('headers-1', 'headers', port),
      caSecret('ca-a', caA),
      caSecret('ca-b', caB),
      caSecret('with-crl', caA, { 'ca.crl': '-----BEGIN X509 CRL-----\n-----END X509 CRL-----\n' }),
      guarded('on.test', {
        [`${A}auth-tls-secret`]: 'default/ca-a',
        [`${A}auth-tls-pass-certificate-to-upstream`]: 'true',
      }),
      guarded('optional.test', {
        [`${A}auth-tls-secret`]: 'default/ca-a',
        [`${A}auth-tls-verify-client`]: 'optional',
      }),
      guarded('no-ca.test', {
        [`${A}auth-tls-secret`]: 'default/ca-a',
        [`${A}auth-tls-verify-client`]: 'optional_no_ca',
      }),
      guarded('error-page.test', {
        [`${A}auth-tls-secret`]: 'default/ca-a',
        [`${A}auth-tls-error-page`]: 'https://errors.test/certificate',
      }),
      guarded('cn.test', { [`${A}auth-tls-secret`]: 'ca-a', [`${A}auth-tls-match-cn`]: 'CN=(alice|dave)' }),
      guarded('b.test', { [`${A}auth-tls-secret`]: 'ca-b' }),
      guarded('crl.test', { [`${A}auth-tls-secret`]: 'with-crl' }),
      guarded('later.test', { [`${A}auth-tls-secret`]: 'later' }),
      ingressManifest('open', { host: 'open.test', service: 'headers', className: 'nginx' }),
      // Another Ingress of on.test, without auth-tls: the host's policy holds for its path too.
      ingressManifest('on-other', {
        host: 'on.test',
        path: '/other',
        service: 'headers',
        className: 'nginx',
      }),
      annotatedIngress('*.wild.test', 'headers', { [`${A}auth-tls-secret`]: 'ca-a' }, { name: 'wild' }),
      ingressManifest('open-wild', { host: 'open.wild.test', service: 'headers', className: 'nginx' }),
      tlsSecretManifest('secure-tls', 'secure.test'),
      withTls(guarded('secure.test', { [`${A}auth-tls-secret`]: 'ca-a' }), 'secure-tls'),
    ];
  },
});

/** What one request over TLS got back, and the TLS session it ran in. */
interface TlsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  reused: boolean;
  session?: Buffer;
}

/**
 * A GET of `path` (`/` unless told) over TLS to the controller's HTTPS port: SNI `servername`
 * (none when empty), Host `host` (the server name unless told), with a client certificate and a
 * session to resume.
 */
function tlsGet(options: {
  servername: string;
  host?: string;
  path?: string;
  client?: CertificatePair;
  session?: Buffer;
}): Promise<TlsAnswer> {
  const { servername, host = servername, path = '/', client, session } = options;
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port: testCase().controller.config.httpsPort,
      ...(servername === '' ? {} : { servername }),
      rejectUnauthorized: false,
      ...(client === undefined ? {} : { cert: client.cert, key: client.key }),
      ...(session === undefined ? {} : { session }),
    });
    let received = '';
    let latest: Buffer | undefined;
    socket.on('session', (ticket: Buffer) => (latest = ticket));
    socket.setEncoding('utf8');
    let reused = false;
    socket.on('secureConnect', () => {
      reused = socket.isSessionReused();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('close', () => {
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const answer: TlsAnswer = {
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: rest.join('\r\n\r\n'),
        reused,
      };
      if (latest !== undefined) answer.session = latest;
      resolve(answer);
    });
  });
}

/**
 * A GET of `/` for `servername` (SNI and Host) with openssl s_client and more `args`: whether the
 * TLS session was resumed, and the status. Asynchronous: the backend runs in this process.
 */
function sendWithOpenssl(servername: string, args: string[]): Promise<{ reused: boolean; status: number }> {
  const port = testCase().controller.config.httpsPort;
  const child = spawn(
    'openssl',
    ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', servername, '-ign_eof', ...args],
    { stdio: ['pipe', 'pipe', 'ignore'], timeout: 10_000 },
  );
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  child.stdin.end(`GET / HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () =>
      resolve({
        reused: /^Reused, /m.test(output),
        status: Number(/HTTP\/1\.1 (\d{3}) /.exec(output)?.[1]),
      }),
    );
  });
}

async function statusOf(servername: string, client?: CertificatePair): Promise<number> {
  return (await tlsGet(client === undefined ? { servername } : { servername, client })).status;
}

/** The ssl-client-* headers the backend received (its body is their JSON; Connection: close reads it whole). */
function backendHeaders(answer: TlsAnswer): Record<string, string> {
  const body = answer.body.trim();
  // A chunked answer: the JSON is the first chunk.
  const json = body.startsWith('{') ? body : (body.split('\r\n')[1] ?? '');
  return JSON.parse(json) as Record<string, string>;
}

describe('auth-tls-verify-client on (the default)', () => {
  it('lets a certificate of the CA through and passes it and the verdict upstream', async () => {
    const answer = await tlsGet({ servername: 'on.test', client: alice });
    expect(answer.status).toBe(200);
    const headers = backendHeaders(answer);
    expect(headers['ssl-client-verify']).toBe('SUCCESS');
    expect(headers['ssl-client-subject-dn']).toBe('CN=alice,O=staff');
    expect(headers['ssl-client-issuer-dn']).toBe('CN=Client CA A');
    expect(decodeURIComponent(headers['ssl-client-cert']!)).toBe(alice.cert);
  });

  it('answers 400 to a certificate of another CA and to none', async () => {
    expect(await statusOf('on.test', mallory)).toBe(400);
    expect(await statusOf('on.test', bob)).toBe(400);
    expect(await statusOf('on.test')).toBe(400);
  });

  it('does not pass the certificate without auth-tls-pass-certificate-to-upstream', async () => {
    const headers = backendHeaders(await tlsGet({ servername: 'b.test', client: bob }));
    expect(headers['ssl-client-verify']).toBe('SUCCESS');
    expect(headers['ssl-client-cert']).toBeUndefined();
  });
});

describe('auth-tls-verify-client optional and optional_no_ca', () => {
  it('optional: lets no certificate through, refuses one that fails verification', async () => {
    const none = await tlsGet({ servername: 'optional.test' });
    expect(none.status).toBe(200);
    expect(backendHeaders(none)['ssl-client-verify']).toBe('NONE');
    expect(await statusOf('optional.test', alice)).toBe(200);
    expect(await statusOf('optional.test', mallory)).toBe(400);
  });

  it('optional_no_ca: lets a certificate of an unknown issuer through with its verdict', async () => {
    const unknown = await tlsGet({ servername: 'no-ca.test', client: mallory });
    expect(unknown.status).toBe(200);
    expect(backendHeaders(unknown)['ssl-client-verify']).toMatch(/^FAILED:.*self.signed certificate/);
    expect(await statusOf('no-ca.test')).toBe(200);
    expect(await statusOf('no-ca.test', alice)).toBe(200);
  });
});

describe('auth-tls-error-page and auth-tls-match-cn', () => {
  it('redirects a failed verification to the error page', async () => {
    const answer = await tlsGet({ servername: 'error-page.test', client: mallory });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('https://errors.test/certificate');
    expect(await statusOf('error-page.test', alice)).toBe(200);
  });

  it('answers 403 to a verified certificate whose subject does not match', async () => {
    expect(await statusOf('cn.test', alice)).toBe(200);
    expect(await statusOf('cn.test', carol)).toBe(403);
    expect(await statusOf('cn.test')).toBe(400);
  });
});

describe('what cannot bypass the verification', () => {
  it('answers 421 when the Host is not the TLS server name, or there is none', async () => {
    expect((await tlsGet({ servername: 'open.test', host: 'on.test', client: alice })).status).toBe(421);
    expect((await tlsGet({ servername: '', host: 'on.test', client: alice })).status).toBe(421);
    expect((await tlsGet({ servername: 'open.test', client: alice })).status).toBe(200);
  });

  it('answers 403 over plain HTTP, unless the route redirects to HTTPS', async () => {
    expect((await testCase().send('on.test')).status).toBe(403);
    expect((await testCase().send('open.test')).status).toBe(200);
    const redirected = await testCase().send('secure.test');
    expect(redirected.status).toBe(308);
    expect(redirected.headers.location).toMatch(/^https:\/\/secure\.test/);
    expect(await statusOf('secure.test')).toBe(400);
    expect(await statusOf('secure.test', alice)).toBe(200);
  });

  it('holds the names a wildcard host covers, but not a more specific host without auth-tls', async () => {
    expect(await statusOf('a.wild.test')).toBe(400);
    expect(await statusOf('a.wild.test', alice)).toBe(200);
    expect(await statusOf('open.wild.test')).toBe(200);
  });

  it('holds the paths of the host that other Ingresses add to the host policy', async () => {
    expect((await tlsGet({ servername: 'on.test', path: '/other' })).status).toBe(400);
    const answer = await tlsGet({ servername: 'on.test', path: '/other', client: alice });
    expect(answer.status).toBe(200);
    expect(backendHeaders(answer)['ssl-client-verify']).toBe('SUCCESS');
  });

  it('resumes a TLS session only for the host it was verified for', async () => {
    // openssl s_client offers a session under any server name (node's client does not).
    const session = join(certificates.dir, 'alice.session');
    const first = await sendWithOpenssl('on.test', [
      '-cert',
      alice.certFile,
      '-key',
      alice.keyFile,
      '-sess_out',
      session,
    ]);
    expect(first).toEqual({ reused: false, status: 200 });
    expect(await sendWithOpenssl('on.test', ['-sess_in', session])).toEqual({ reused: true, status: 200 });
    expect(await sendWithOpenssl('b.test', ['-sess_in', session])).toEqual({ reused: false, status: 400 });
  });

  it('keeps the hosts closed (403) with a CA Secret holding a revocation list', async () => {
    expect(await statusOf('crl.test', alice)).toBe(403);
  });
});

describe('the CA Secret', () => {
  it('keeps the host closed until the Secret exists, then follows its changes without a reload', async () => {
    const { controller, server } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    const workers = await controller.dataPlane.workerPids();
    expect(await statusOf('later.test', alice)).toBe(403);
    await server.apply(caSecret('later', caA));
    await eventually(async () => expect(await statusOf('later.test', alice)).toBe(200));
    expect(await statusOf('later.test', bob)).toBe(400);
    await server.apply(caSecret('later', caB));
    await eventually(async () => expect(await statusOf('later.test', bob)).toBe(200));
    expect(await statusOf('later.test', alice)).toBe(400);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect(await controller.dataPlane.workerPids()).toEqual(workers);
  });
});
