/**
 * The HTTPS endpoint of the validating admission webhook (`--validating-webhook`): POST
 * `/networking/v1/ingresses`, the path ingress-nginx's webhook uses, so an existing
 * ValidatingWebhookConfiguration can point at it unchanged. The API server only calls webhooks
 * over TLS; the certificate and key are files (a mounted Secret), as in ingress-nginx.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
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
}

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
    const answer = reviewIngressAdmission(body, options);
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
