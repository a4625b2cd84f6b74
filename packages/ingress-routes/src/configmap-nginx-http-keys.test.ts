import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  HTTP_SETTINGS_CONFIG_KEYS,
  HTTP_SETTINGS_KEYS,
  type ConfigMapHttpSettings,
} from './configmap-nginx-http-keys.js';
import { INGRESS_NGINX_CONFIGMAP_KEYS, parseControllerConfigMap } from './ingress-nginx-configmap.js';

function read(data: Record<string, string>): {
  settings: ConfigMapHttpSettings;
  problems: Record<string, string>;
} {
  const settings: ConfigMapHttpSettings = {};
  const problems: Record<string, string> = {};
  for (const [name, value] of Object.entries(data)) {
    const problem = HTTP_SETTINGS_KEYS[name]!(value, settings);
    if (problem !== undefined) problems[name] = problem;
  }
  return { settings, problems };
}

const TICKET_80 = randomBytes(80).toString('base64');
const TICKET_48 = randomBytes(48).toString('base64');

describe('HTTP_SETTINGS_KEYS', () => {
  it('reads numbers, sizes, times and flags into settings', () => {
    const { settings, problems } = read({
      'client-header-buffer-size': '2k',
      'large-client-header-buffers': '8  16k',
      'client-header-timeout': '30',
      'client-body-timeout': '45s',
      'use-http2': 'false',
      'http2-max-concurrent-streams': '64',
      'ssl-session-cache': 'true',
      'ssl-session-cache-size': '20m',
      'ssl-session-timeout': '1h',
      'ssl-session-tickets': 'T',
      'ssl-session-ticket-key': TICKET_80,
      'ssl-buffer-size': '16k',
      'enable-underscores-in-headers': 'true',
      'ignore-invalid-headers': 'false',
      'server-name-hash-bucket-size': '128',
      'server-name-hash-max-size': '2048',
      'proxy-headers-hash-bucket-size': '128',
      'proxy-headers-hash-max-size': '1024',
      'variables-hash-bucket-size': '512',
      'variables-hash-max-size': '4096',
      'map-hash-bucket-size': '128',
      'reuse-port': 'true',
      'worker-cpu-affinity': ' 0001  0010 ',
      'max-worker-open-files': '65536',
      'enable-multi-accept': 'false',
      'default-type': 'text/html',
      'gzip-disable': 'MSIE [1-6].',
      'enable-brotli': 'true',
      'brotli-level': '11',
      'brotli-min-length': '100',
      'brotli-types': 'text/css application/json text/css',
      'bind-address': '127.0.0.1, ::1,127.0.0.1',
      'disable-ipv6': 'false',
      'error-log-path': '/var/log/ingresskit/error.log',
    });
    expect(problems).toEqual({});
    expect(settings).toEqual({
      clientHeaderBufferSize: '2k',
      largeClientHeaderBuffers: { number: 8, size: '16k' },
      clientHeaderTimeoutSeconds: 30,
      clientBodyTimeoutSeconds: 45,
      http2: false,
      http2MaxConcurrentStreams: 64,
      sslSessionCache: true,
      sslSessionCacheSize: '20m',
      sslSessionTimeout: '1h',
      sslSessionTickets: true,
      sslSessionTicketKey: TICKET_80,
      sslBufferSize: '16k',
      underscoresInHeaders: true,
      ignoreInvalidHeaders: false,
      serverNamesHashBucketSize: 128,
      serverNamesHashMaxSize: 2048,
      proxyHeadersHashBucketSize: 128,
      proxyHeadersHashMaxSize: 1024,
      variablesHashBucketSize: 512,
      variablesHashMaxSize: 4096,
      mapHashBucketSize: 128,
      reusePort: true,
      workerCpuAffinity: '0001 0010',
      maxWorkerOpenFiles: 65536,
      multiAccept: false,
      defaultType: 'text/html',
      gzipDisable: 'MSIE [1-6].',
      brotli: true,
      brotliLevel: 11,
      brotliMinLength: 100,
      brotliTypes: ['text/css', 'application/json'],
      bindAddresses: ['127.0.0.1', '::1'],
      disableIpv6: false,
      errorLogPath: '/var/log/ingresskit/error.log',
    });
  });

  it('takes a ticket key of 48 bytes, "auto" CPU affinity and msie6', () => {
    expect(
      read({
        'ssl-session-ticket-key': TICKET_48,
        'worker-cpu-affinity': 'auto 1010',
        'gzip-disable': 'msie6',
      }).settings,
    ).toEqual({ sslSessionTicketKey: TICKET_48, workerCpuAffinity: 'auto 1010', gzipDisable: 'msie6' });
  });

  it("reads nginx's stderr paths as the default error log", () => {
    for (const path of ['/dev/stderr', '/var/log/nginx/error.log']) {
      const settings: ConfigMapHttpSettings = { errorLogPath: '/tmp/old.log' };
      expect(HTTP_SETTINGS_KEYS['error-log-path']!(path, settings)).toBeUndefined();
      expect(settings).toEqual({});
    }
  });

  const injection = '1k; include /etc/passwd';
  it.each([
    ['client-header-buffer-size', injection],
    ['client-header-buffer-size', '2g'],
    ['client-header-buffer-size', '0'],
    ['large-client-header-buffers', '4 8k; user root'],
    ['large-client-header-buffers', '8k'],
    ['large-client-header-buffers', '0 8k'],
    ['large-client-header-buffers', '4 512'],
    ['client-header-timeout', '60s;'],
    ['client-header-timeout', '0'],
    ['client-body-timeout', '1m'],
    ['use-http2', 'on'],
    ['http2-max-concurrent-streams', '0'],
    ['http2-max-concurrent-streams', '128 default'],
    ['ssl-session-cache-size', '10m; ssl_session_tickets on'],
    ['ssl-session-cache-size', '1k'],
    ['ssl-session-timeout', '10m }'],
    ['ssl-session-timeout', '30d'],
    ['ssl-session-ticket-key', 'not base64!'],
    ['ssl-session-ticket-key', randomBytes(32).toString('base64')],
    ['ssl-session-ticket-key', `${TICKET_80}\n`],
    ['ssl-buffer-size', '32k'],
    ['server-name-hash-bucket-size', '64;'],
    ['server-name-hash-max-size', '-1'],
    ['variables-hash-max-size', '1e3'],
    ['map-hash-bucket-size', '16'],
    ['reuse-port', 'yes'],
    ['worker-cpu-affinity', 'auto; user root'],
    ['worker-cpu-affinity', '0012'],
    ['max-worker-open-files', '-1'],
    ['default-type', 'text/html; charset=utf-8'],
    ['default-type', 'text/html;include /etc/passwd'],
    ['gzip-disable', 'msie6"; include /etc/passwd; #'],
    ['gzip-disable', '$http_user_agent'],
    ['gzip-disable', 'a\\'],
    ['gzip-disable', 'a{2}'],
    ['gzip-disable', '(unclosed'],
    ['brotli-level', '12'],
    ['brotli-types', 'text/css; include /etc/passwd'],
    ['bind-address', '127.0.0.1;include /etc/passwd'],
    ['bind-address', 'localhost'],
    ['disable-ipv6', 'maybe'],
    ['error-log-path', 'error.log'],
    ['error-log-path', '/var/log/../../etc/passwd'],
    ['error-log-path', '/tmp/error.log debug; user root'],
    ['error-log-path', '/tmp/logs/'],
  ])('refuses %s %j', (name, value) => {
    const { settings, problems } = read({ [name]: value });
    expect(settings).toEqual({});
    expect(problems[name]).toMatch(/^(must|is|holds)/);
  });
});

describe('HTTP_SETTINGS_CONFIG_KEYS', () => {
  it('applies every key by reloading nginx, in the catalogue once', () => {
    for (const key of HTTP_SETTINGS_CONFIG_KEYS) {
      expect(key.applied).toBe('reload');
      expect(INGRESS_NGINX_CONFIGMAP_KEYS.filter((entry) => entry.name === key.name)).toHaveLength(1);
    }
  });
});

describe('parseControllerConfigMap with http settings', () => {
  it('gives the settings as nginx.http and keeps the last valid value of a bad one', () => {
    const first = parseControllerConfigMap({ 'large-client-header-buffers': '4 16k', 'reuse-port': 'true' });
    expect(first.problems).toEqual([]);
    expect(first.settings.nginx.http).toEqual({
      largeClientHeaderBuffers: { number: 4, size: '16k' },
      reusePort: true,
    });
    const second = parseControllerConfigMap(
      { 'large-client-header-buffers': '4 16k; include /etc/passwd', 'reuse-port': 'true' },
      first.values,
    );
    expect(second.settings.nginx.http).toEqual(first.settings.nginx.http);
    expect(second.problems).toEqual([
      expect.objectContaining({
        field: 'data["large-client-header-buffers"]',
        severity: 'error',
        message: expect.stringContaining('the last valid value "4 16k" stays'),
      }),
    ]);
  });

  it('reports the obsolete HTTP/2 keys as warnings, but not their defaults', () => {
    const { problems, settings } = parseControllerConfigMap({
      'http2-max-field-size': '8k',
      'http2-max-header-size': '',
      'http2-max-requests': '1000',
    });
    expect(settings.nginx).toEqual({});
    expect(problems.map(({ field, severity, message }) => `${field} ${severity} ${message}`)).toEqual([
      expect.stringMatching(/^data\["http2-max-field-size"\] warning .*use large-client-header-buffers$/),
      expect.stringMatching(/^data\["http2-max-requests"\] warning .*use keep-alive-requests$/),
    ]);
  });
});
