/**
 * The HTTPS endpoint of the validating admission webhook (`--validating-webhook`): POST
 * `/networking/v1/ingresses`, the path ingress-nginx's webhook uses, so an existing
 * ValidatingWebhookConfiguration can point at it unchanged. The API server only calls webhooks
 * over TLS; the certificate and key are files (a mounted Secret), as in ingress-nginx.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extractIngressReferences, type Ingress, type Secret } from '@ingresskit/store';
import { AdmissionRequestError, reviewIngressAdmission, type IngressAdmissionOptions } from './admission.js';
import { listen, type ListeningServer } from './listen.js';
import type { Logger } from './logger.js';

/** Where ingress-nginx's webhook answers, and so ours. */
export const INGRESS_ADMISSION_PATH = '/networking/v1/ingresses';

/** An AdmissionReview holds the object and the old object, each at most etcd's 1.5 MiB. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface AdmissionServerOptions extends IngressAdmissionOptions {
  host?: string | undefined;
  port: number;
  certificateFile: string;
  keyFile: string;
  logger: Logger;
  /**
   * Reads a Secret the view does not hold (the store holds only Secrets something references
   * already); without it, such a Secret reads as missing.
   */
  readSecret?: (key: string) => Promise<Secret | undefined>;
  /** The annotations whose value names a Secret (`secretAnnotationsOf`), for `readSecret`. */
  secretAnnotations?: readonly string[];
}

/** The Secrets one review reads at most: an Ingress may name many, each read is a request. */
const MAX_SECRET_READS = 8;

/** A listening webhook. */
export type AdmissionServer = ListeningServer;

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(
  options: AdmissionServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = (request.url ?? '').split('?', 1)[0];
  if (path !== INGRESS_ADMISSION_PATH)
    return send(response, 404, { message: `not found; reviews go to ${INGRESS_ADMISSION_PATH}` });
  if (request.method !== 'POST') return send(response, 405, { message: 'use POST' });
  const text = await readBody(request);
  if (text === undefined)
    return send(response, 413, { message: `the body is larger than ${MAX_BODY_BYTES} bytes` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return send(response, 400, { message: 'the body is not JSON' });
  }
  try {
    const answer = reviewIngressAdmission(body, await withReferencedSecrets(body, options));
    if (!answer.response.allowed) {
      options.logger.info(
        { uid: answer.response.uid, message: answer.response.status?.message },
        'admission refused an Ingress',
      );
    }
    send(response, 200, answer);
  } catch (error) {
    if (!(error instanceof AdmissionRequestError)) throw error;
    send(response, 400, { message: error.message });
  }
}

/**
 * `options` whose view also holds the Secrets in its own namespace the reviewed Ingress names that
 * the view does not hold (read now, a few at most): the first Ingress to name a Secret is judged
 * with it, not told it is missing. Another namespace's Secret is not read for a review (what it
 * holds is not the author's to learn from warnings). A read that fails leaves that Secret missing.
 */
async function withReferencedSecrets(
  body: unknown,
  options: AdmissionServerOptions,
): Promise<AdmissionServerOptions> {
  const { readSecret } = options;
  const object = (body as { request?: { object?: unknown } } | null)?.request?.object;
  const metadata = (object as { metadata?: { name?: unknown; namespace?: unknown } } | null | undefined)
    ?.metadata;
  if (
    readSecret === undefined ||
    typeof metadata?.name !== 'string' ||
    typeof metadata.namespace !== 'string'
  )
    return options;
  const view = options.view();
  const own = `${metadata.namespace}/`;
  const missing = extractIngressReferences(object as Ingress, options.secretAnnotations)
    .secrets.filter((key) => key.startsWith(own) && view.secret(key) === undefined)
    .slice(0, MAX_SECRET_READS);
  if (missing.length === 0) return options;
  const read = new Map<string, Secret>();
  await Promise.all(
    missing.map(async (key) => {
      const secret = await readSecret(key).catch((error: unknown) => {
        options.logger.debug({ err: error, secret: key }, 'admission: a Secret could not be read');
        return undefined;
      });
      if (secret !== undefined) read.set(key, secret);
    }),
  );
  if (read.size === 0) return options;
  return { ...options, view: () => ({ ...view, secret: (key) => read.get(key) ?? view.secret(key) }) };
}

/** Starts the webhook; rejects when the certificate cannot be read or the port bound. */
export async function startAdmissionServer(options: AdmissionServerOptions): Promise<AdmissionServer> {
  const [cert, key] = await Promise.all([readFile(options.certificateFile), readFile(options.keyFile)]);
  const server: Server = createServer({ cert, key }, (request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      options.logger.error({ err: error }, 'admission review failed');
      // Answer 500 rather than allow: the API server applies the webhook's failurePolicy.
      if (!response.headersSent) send(response, 500, { message: 'internal error' });
      else response.destroy();
    });
  });
  return listen(server, options.port, options.host);
}
