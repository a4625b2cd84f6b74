/**
 * The cluster the system scenarios run against: N Ingresses (2 Prefix paths each), 1 Service and
 * 1 EndpointSlice per Ingress, every 10th Ingress with TLS (its own Secret, certificates from a
 * small pool), spread over a few namespaces, and a handful of real HTTP backends on 127.0.0.1 that
 * answer with their name, so a request through nginx shows which endpoint answered.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** Every `TLS_EVERY`th Ingress has a TLS section. */
export const TLS_EVERY = 10;
/** Namespaces the Ingresses are spread over. */
export const NAMESPACES = 10;
/** The IngressClass every fixture Ingress names, owned by the controller's default class. */
export const CLASS_NAME = 'nginx';
/** The controller's default `--controller-class`. */
export const CONTROLLER_CLASS = 'ingresskit.dev/ingress-controller';
/** Paths every Ingress routes, both Prefix. */
export const PATHS = ['/app', '/static'] as const;

/** A base64 PEM pair for a Secret's `tls.crt` / `tls.key`. */
export interface Certificate {
  crt: string;
  key: string;
  /** SHA-256 fingerprint as a TLS client sees it (`AB:CD:…`, X509Certificate.fingerprint256). */
  fingerprint: string;
}

/** A backend HTTP server on 127.0.0.1 that answers every request with its name. */
export interface Backend {
  name: string;
  port: number;
  requests(): number;
  stop(): Promise<void>;
}

/** Where Ingress `index` lives and how it is reached. */
export interface IngressRef {
  index: number;
  namespace: string;
  name: string;
  host: string;
  tls: boolean;
}

/** Names of Ingress `index` and of its Service, Secret and EndpointSlice; `tlsEvery` 0 means no TLS. */
export function refOf(index: number, tlsEvery = TLS_EVERY): IngressRef {
  const name = `app-${index}`;
  return {
    index,
    namespace: `team-${index % NAMESPACES}`,
    name,
    host: `${name}.bench.test`,
    tls: tlsEvery > 0 && index % tlsEvery === 0,
  };
}

/** Creates `count` distinct EC certificates for `*.bench.test` (quick to make) in `dir`. */
export function createCertificatePool(dir: string, count: number): Certificate[] {
  return Array.from({ length: count }, (_, i) => {
    const key = join(dir, `pool-${i}.key`);
    const crt = join(dir, `pool-${i}.crt`);
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '3650',
        '-subj',
        '/CN=*.bench.test',
        '-addext',
        'subjectAltName=DNS:*.bench.test',
        '-keyout',
        key,
        '-out',
        crt,
      ],
      { stdio: 'ignore' },
    );
    const pem = readFileSync(crt);
    return {
      crt: pem.toString('base64'),
      key: readFileSync(key).toString('base64'),
      fingerprint: new X509Certificate(pem).fingerprint256,
    };
  });
}

/** Starts `count` backends named b0, b1, … on free ports of 127.0.0.1. */
export async function startBackends(count: number): Promise<Backend[]> {
  const backends: Backend[] = [];
  for (let i = 0; i < count; i++) backends.push(await startBackend(`b${i}`));
  return backends;
}

async function startBackend(name: string): Promise<Backend> {
  let count = 0;
  const server: Server = createServer((request, response) => {
    count += 1;
    request.resume();
    response.writeHead(200, { 'content-type': 'text/plain', 'x-backend': name });
    response.end(`${name}\n`);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    name,
    port: (server.address() as AddressInfo).port,
    requests: () => count,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What an Ingress may carry besides the fixture's paths. */
export interface IngressShape {
  /** The Prefix paths; {@link PATHS} by default. */
  paths?: readonly string[];
  /** One more Prefix path (a structural edit). */
  extraPath?: string;
  annotations?: Record<string, string>;
}

/** The Ingress of `ref`. */
export function ingressObject(ref: IngressRef, shape: IngressShape = {}): Record<string, unknown> {
  const paths = [...(shape.paths ?? PATHS), ...(shape.extraPath === undefined ? [] : [shape.extraPath])].map(
    (path) => ({
      path,
      pathType: 'Prefix',
      backend: { service: { name: ref.name, port: { number: 80 } } },
    }),
  );
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      ...(shape.annotations === undefined ? {} : { annotations: shape.annotations }),
    },
    spec: {
      ingressClassName: CLASS_NAME,
      ...(ref.tls ? { tls: [{ hosts: [ref.host], secretName: `${ref.name}-tls` }] } : {}),
      rules: [{ host: ref.host, http: { paths } }],
    },
  };
}

/** The EndpointSlice of `ref`'s Service with one ready endpoint, 127.0.0.1:`port`. */
export function endpointSliceObject(ref: IngressRef, port: number): Record<string, unknown> {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${ref.name}-1`,
      namespace: ref.namespace,
      labels: { 'kubernetes.io/service-name': ref.name },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true, serving: true } }],
    ports: [{ name: 'http', port, protocol: 'TCP' }],
  };
}

/** The TLS Secret of `ref` holding `certificate`. */
export function secretObject(ref: IngressRef, certificate: Certificate): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${ref.name}-tls`, namespace: ref.namespace },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': certificate.crt, 'tls.key': certificate.key },
  };
}

/** Which pool certificate the Secret of TLS Ingress `index` starts with. */
export function initialCertificateOf(index: number, pool: number): number {
  return Math.floor(index / TLS_EVERY) % pool;
}

/**
 * Everything one Ingress needs: its Service, EndpointSlice (on `backendPort`), Secret when it has
 * TLS, and the Ingress itself, in the order they can be applied.
 */
export function objectsOfIngress(
  ref: IngressRef,
  backendPort: number,
  certificate: Certificate | undefined,
  shape: IngressShape = {},
): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: ref.name, namespace: ref.namespace },
      spec: { ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
    },
    endpointSliceObject(ref, backendPort),
    ...(ref.tls && certificate !== undefined ? [secretObject(ref, certificate)] : []),
    ingressObject(ref, shape),
  ];
}

/** Which backend Ingress `index` starts on. */
export function initialBackendOf(index: number, backends: number): number {
  return index % backends;
}

/**
 * All objects of a cluster with `count` Ingresses: Namespaces, the IngressClass, and per Ingress
 * its Service, EndpointSlice (pointing at one of `backendPorts`) and, for TLS ones (every
 * `options.tlsEvery`th, 0 for none), its Secret.
 */
export function createClusterObjects(
  count: number,
  backendPorts: readonly number[],
  certificates: readonly Certificate[],
  options: { tlsEvery?: number; paths?: readonly string[] } = {},
): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (let n = 0; n < NAMESPACES; n++)
    objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${n}` } });
  objects.push({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: CLASS_NAME },
    spec: { controller: CONTROLLER_CLASS },
  });
  for (let i = 0; i < count; i++) {
    const ref = refOf(i, options.tlsEvery);
    objects.push(
      ...objectsOfIngress(
        ref,
        backendPorts[initialBackendOf(i, backendPorts.length)]!,
        certificates[initialCertificateOf(i, certificates.length)],
        options.paths === undefined ? {} : { paths: options.paths },
      ),
    );
  }
  return objects;
}
