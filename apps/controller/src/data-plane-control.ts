/**
 * The client of nginx's control socket: HTTP over a unix socket to read nginx's status, its data
 * digest, its request metrics and counters, and to push data entries.
 */
import { request as httpRequest } from 'node:http';
import {
  DATA_ENDPOINT_PATH,
  DIGEST_ENDPOINT_PATH,
  NGINX_STATUS_ENDPOINT_PATH,
  parseNginxStatus,
  parseRequestMetrics,
  REQUEST_METRICS_ENDPOINT_PATH,
  STATUS_ENDPOINT_PATH,
  type DataPlaneAccepted,
  type DataPlaneDigest,
  type DataPlaneRejection,
  type DataPlaneStatus,
  type NginxStatus,
  type RequestMetrics,
} from '@ingresskit/nginx-template';
import { computeBackoffDelay, systemClock, type BackoffPolicy } from '@ingresskit/task-queue';
import { DataPlaneFullError, DataPlanePushError, NginxReloadError } from './errors.js';

/** How often the status endpoint is asked whether nginx runs a new nginx.conf yet. */
const STATUS_POLL_MS = 10;
/** How long one request on the control socket may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/** One answer of the control socket. */
export interface ControlResponse {
  status: number;
  body: string;
}

/** What a push left: the entries nginx refused (it stored nothing then), or its answer when it took all. */
export interface PushOutcome {
  rejected: DataPlaneRejection['rejected'];
  accepted?: DataPlaneAccepted;
}

/** Resolves after `ms`; for waits between control-socket retries, polls and reloads. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolvePromise) => systemClock.setTimer(ms, resolvePromise));
}

/** Sends one request to the control socket; rejects when nginx does not answer within 10 s. */
export function requestControl(
  socketPath: string,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
): Promise<ControlResponse> {
  return new Promise((resolvePromise, reject) => {
    const request = httpRequest(
      {
        socketPath,
        method,
        path,
        headers:
          body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolvePromise({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`${method} ${path} timed out`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** Reads nginx's status; undefined when nginx does not answer. */
export async function readStatus(socketPath: string): Promise<DataPlaneStatus | undefined> {
  try {
    const { status, body } = await requestControl(socketPath, 'GET', STATUS_ENDPOINT_PATH);
    return status === 200 ? (JSON.parse(body) as DataPlaneStatus) : undefined;
  } catch {
    return undefined;
  }
}

/** The requests nginx counted (ingress-nginx's request metrics); undefined when nginx does not answer. */
export async function readRequestMetrics(socketPath: string): Promise<RequestMetrics | undefined> {
  try {
    const { status, body } = await requestControl(socketPath, 'GET', REQUEST_METRICS_ENDPOINT_PATH);
    return status === 200 ? parseRequestMetrics(body) : undefined;
  } catch {
    return undefined;
  }
}

/** nginx's connection and request counters (stub_status); undefined when nginx does not answer. */
export async function readNginxStatus(socketPath: string): Promise<NginxStatus | undefined> {
  const response = await requestControl(socketPath, 'GET', NGINX_STATUS_ENDPOINT_PATH).catch(() => undefined);
  return response?.status === 200 ? parseNginxStatus(response.body) : undefined;
}

/**
 * Asks nginx to recompute the digest of the data it holds; undefined when it does not answer or
 * answers anything but 200 (a 409 while a push is being applied).
 */
export async function readDigest(socketPath: string): Promise<DataPlaneDigest | undefined> {
  const response = await requestControl(socketPath, 'GET', DIGEST_ENDPOINT_PATH).catch(() => undefined);
  if (response?.status !== 200) return undefined;
  return JSON.parse(response.body) as DataPlaneDigest;
}

// A push that failed in passing (nginx restarting its workers) is retried after 100, then 200 ms.
const pushRetryBackoff: BackoffPolicy = { initialMs: 100, maxMs: 200 };

/**
 * Pushes data entries, retrying twice what may pass later. Resolves with what nginx refused (a
 * 422: it stored nothing), or with what it answered when it took everything; rejects with a
 * DataPlanePushError otherwise, which leaves nginx's data unknown. `sharedMemory` names the size
 * of nginx's shared memory for the error when the data does not fit.
 */
export async function pushData(socketPath: string, body: string, sharedMemory: string): Promise<PushOutcome> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await sleep(computeBackoffDelay(pushRetryBackoff, attempt));
    try {
      const response = await requestControl(socketPath, 'POST', DATA_ENDPOINT_PATH, body);
      if (response.status === 201)
        return { rejected: [], accepted: JSON.parse(response.body) as DataPlaneAccepted };
      if (response.status === 422)
        return { rejected: (JSON.parse(response.body) as DataPlaneRejection).rejected };
      if (response.status === 413 || response.status === 507) {
        // Retrying cannot help: the data does not fit the shared memory nginx was started with.
        lastError = new DataPlaneFullError(
          `the route data (${(Buffer.byteLength(body) / 1024 ** 2).toFixed(1)} MiB in this push) does not fit nginx's shared memory of ${sharedMemory}; raise --lua-shared-dict-size`,
        );
        break;
      }
      lastError = new DataPlanePushError(
        `nginx's control endpoint answered ${response.status}: ${response.body.trim()}`,
      );
      if (response.status < 500) break;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof DataPlanePushError
    ? lastError
    : new DataPlanePushError(`cannot push to nginx: ${String(lastError)}`, { cause: lastError });
}

/**
 * Polls the status endpoint until nginx runs the nginx.conf with `configHash`; rejects with an
 * NginxReloadError when `hasExited()` turns true or `timeoutMs` passes. `what` names the wait.
 */
export async function waitForConfiguration(
  socketPath: string,
  configHash: string,
  what: string,
  { timeoutMs, hasExited }: { timeoutMs: number; hasExited: () => boolean },
): Promise<void> {
  const deadline = systemClock.now() + timeoutMs;
  for (;;) {
    if (hasExited()) throw new NginxReloadError(`nginx exited while waiting for ${what}`);
    const status = await readStatus(socketPath);
    if (status?.confHash === configHash) return;
    if (systemClock.now() > deadline) throw new NginxReloadError(`timed out waiting for ${what}`);
    await sleep(STATUS_POLL_MS);
  }
}
