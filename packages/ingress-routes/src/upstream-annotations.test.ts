import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { createRoutePolicy } from './route-policy.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function parse(annotations: Record<string, string>) {
  return parseAnnotations(Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}${k}`, v])));
}

describe('upstream annotations (parseAnnotations → createRoutePolicy)', () => {
  it('reads every setting into upstreamSettings', () => {
    const { annotations, problems } = parse({
      'proxy-buffering': 'off',
      'proxy-request-buffering': 'on',
      'proxy-http-version': '1.0',
      'proxy-buffer-size': '16k',
      'proxy-buffers-number': '8',
      'client-body-buffer-size': '1m',
      'proxy-max-temp-file-size': '1024m',
      'proxy-next-upstream': 'http_503 error  timeout',
      'proxy-next-upstream-timeout': '30',
    });
    expect(problems).toEqual([]);
    expect(createRoutePolicy(annotations!, 's').upstreamSettings).toEqual({
      responseBuffering: false,
      requestBuffering: true,
      httpVersion: '1.0',
      bufferSizeBytes: 16384,
      buffersNumber: 8,
      requestBodyBufferBytes: 1048576,
      maxTempFileBytes: 1024 ** 3,
      retryOn: ['error', 'timeout', 'http_503'],
      retryTimeoutSeconds: 30,
    });
  });

  it('reads proxy-next-upstream off as no retry', () => {
    expect(parse({ 'proxy-next-upstream': 'off' }).annotations?.upstreamSettings).toEqual({ retryOn: [] });
  });

  it.each([
    ['proxy-buffering', 'false'],
    ['proxy-http-version', '2'],
    ['proxy-buffer-size', '2m'],
    ['proxy-buffer-size', '4k;'],
    ['proxy-buffers-number', '2'],
    ['client-body-buffer-size', '512'],
    ['proxy-max-temp-file-size', '64k'],
    ['proxy-next-upstream', 'error http_418'],
    ['proxy-next-upstream', 'off error'],
    ['proxy-next-upstream-timeout', '5s'],
  ])('leaves the Ingress out for %s: %j', (name, value) => {
    const { annotations, problems } = parse({ [name]: value });
    expect(annotations).toBeUndefined();
    expect(problems).toContainEqual(
      expect.objectContaining({ severity: 'error', field: `metadata.annotations["${P}${name}"]` }),
    );
  });
});
