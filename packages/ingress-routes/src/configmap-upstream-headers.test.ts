import { describe, expect, it } from 'vitest';
import { parseControllerConfigMap } from './ingress-nginx-configmap.js';

describe('parseControllerConfigMap with the upstream header keys', () => {
  it('reads generate-request-id, proxy-add-original-uri-header and hide-headers as nginx.conf settings', () => {
    const { settings, problems } = parseControllerConfigMap({
      'generate-request-id': 'false',
      'proxy-add-original-uri-header': 'true',
      'hide-headers': ' X-Powered-By, Server ,X-Powered-By,',
    });
    expect(problems).toEqual([]);
    expect(settings.nginx).toEqual({
      upstreamHeaders: { requestId: false, originalUri: true, hide: ['X-Powered-By', 'Server'] },
    });
  });

  it.each([
    ['generate-request-id', 'yes'],
    ['proxy-add-original-uri-header', 'on'],
    ['hide-headers', 'X-A, X B'],
    ['hide-headers', 'X-A;'],
  ])('refuses %s %j and keeps the last valid value', (key, value) => {
    const first = parseControllerConfigMap({ 'generate-request-id': 'false', 'hide-headers': 'X-A' });
    const second = parseControllerConfigMap(
      { 'generate-request-id': 'false', 'hide-headers': 'X-A', [key]: value },
      first.values,
    );
    expect(second.problems).toMatchObject([{ field: `data["${key}"]`, severity: 'error', value }]);
    expect(second.settings.nginx).toEqual(first.settings.nginx);
  });
});
