import { describe, expect, it } from 'vitest';
import { describeApiFailure, describeApiFailureReason } from './api-failure.js';

/** What undici's fetch throws when the connection fails. */
function fetchFailed(code: string, message: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
}

describe('describeApiFailureReason', () => {
  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443', 'connection refused: nothing listens there'],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND api.example', 'the host name does not resolve'],
    [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'self-signed certificate',
      'TLS: the server certificate is self-signed and not trusted (set certificate-authority in the kubeconfig)',
    ],
  ])('names %s in words, through the cause chain of the store and of fetch', (code, message, reason) => {
    const informerError = new Error('list of Ingress failed: fetch failed', {
      cause: fetchFailed(code, message),
    });
    expect(describeApiFailureReason(informerError)).toBe(reason);
  });

  it("reads the status and the API server's message of a refused request", () => {
    const forbidden = Object.assign(new Error('HTTP-Code: 403'), {
      code: 403,
      body: JSON.stringify({
        kind: 'Status',
        message: 'ingresses.networking.k8s.io is forbidden: User "x" cannot list resource "ingresses"',
      }),
    });
    expect(describeApiFailureReason(forbidden)).toBe(
      'HTTP 403: permission missing: ingresses.networking.k8s.io is forbidden: User "x" cannot list resource "ingresses"',
    );
    expect(describeApiFailureReason(Object.assign(new Error('x'), { statusCode: 401 }))).toBe(
      'HTTP 401: the credentials in the kubeconfig were refused',
    );
  });

  it('falls back to the innermost message it does not know', () => {
    expect(describeApiFailureReason(new Error('outer', { cause: new Error('bad port') }))).toBe('bad port');
  });
});

describe('describeApiFailure', () => {
  it('names the address tried', () => {
    expect(describeApiFailure('https://10.0.0.1:6443', fetchFailed('ECONNREFUSED', 'refused'))).toBe(
      'cannot use the API server at https://10.0.0.1:6443: connection refused: nothing listens there',
    );
  });
});
