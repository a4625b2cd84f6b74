/** Reads an HTTP request: whether it accepts JSON, integer query values, and the body as bytes or a decoded object. */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiStatusError, buildBadRequestStatus, buildFailureStatus, failWith } from './errors.js';
import { decodeProtobufObject, protobufContentType } from './protobuf.js';

/** True when the Accept header allows a JSON answer or is absent; protobuf-only clients get 406 and retry with JSON. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0]!.trim().toLowerCase();
    return (
      type === 'application/json' || type === '*/*' || type === 'application/*' || type.endsWith('+json')
    );
  });
}

/** The integer query value `name`, undefined when absent or empty; 400 when it is not an integer. */
export function parseInteger(value: string | null, name: string): number | undefined {
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value))
    failWith(buildBadRequestStatus(`invalid value for ${name}: ${JSON.stringify(value)}`));
  return Number(value);
}

/** The whole request body. */
export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Reads and discards the body, so the connection can be reused after an early answer. */
export async function drain(request: IncomingMessage): Promise<void> {
  if (request.readableEnded) return;
  await readBody(request);
}

/** The body decoded by its Content-Type (JSON, YAML or protobuf); 400 or 415 when it cannot be. */
export async function readObjectBody(request: IncomingMessage): Promise<unknown> {
  const type = (request.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  const raw = await readBody(request);
  if (type === 'application/json' || type === '' || type === '*/*') return parseBody(raw, 'json');
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml')
    return parseBody(raw, 'yaml');
  if (type === protobufContentType) {
    const result = decodeProtobufObject(raw);
    if (result.decoded) return result.object;
    failWith(
      result.reason === 'malformed'
        ? buildBadRequestStatus(result.message)
        : buildFailureStatus(415, result.message, 'UnsupportedMediaType'),
    );
  }
  failWith(
    buildFailureStatus(
      415,
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
      'UnsupportedMediaType',
    ),
  );
}

/** Parses JSON, or for `yaml` JSON then YAML; 400 when it does not parse. */
export function parseBody(raw: Buffer, format: 'json' | 'yaml'): unknown {
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (format === 'json') {
      throw new ApiStatusError(
        buildBadRequestStatus(
          `the body of the request could not be decoded as JSON: ${(error as Error).message}`,
        ),
        {
          cause: error,
        },
      );
    }
  }
  try {
    return parseYaml(text) as unknown;
  } catch (error) {
    throw new ApiStatusError(buildBadRequestStatus(`error decoding YAML: ${(error as Error).message}`), {
      cause: error,
    });
  }
}
