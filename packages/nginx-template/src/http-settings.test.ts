import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildConfiguration,
  InvalidRenderOptionsError,
  listHttpSettingsFiles,
  renderNginxConf,
  resolveSettings,
  type HttpOptions,
  type RenderOptions,
} from './index.js';

const base: RenderOptions = { controlSocketPath: '/run/ingresskit/control.sock' };
const table = {
  listeners: [
    { name: 'http', port: 80, protocol: 'HTTP' as const },
    { name: 'https', port: 443, protocol: 'HTTPS' as const },
  ],
  virtualHosts: [],
  tls: [],
  certificates: [],
  backends: [],
};

function render(http?: HttpOptions): string {
  return renderNginxConf(
    buildConfiguration(table, { ...base, ...(http === undefined ? {} : { http }) }).configuration,
  );
}

describe('HttpOptions (resolveSettings)', () => {
  it('leaves the settings without http when nothing is set', () => {
    expect(resolveSettings({ ...base, http: {} })).toEqual(resolveSettings(base));
    expect(resolveSettings(base)).not.toHaveProperty('http');
  });

  it("fills in ingress-nginx's brotli defaults and loads the brotli module only when on", () => {
    const settings = resolveSettings({ ...base, http: { brotli: true } });
    expect(settings.http?.brotli).toMatchObject({ level: 4, minLength: 20 });
    expect(settings.http?.brotli?.types).toContain('application/json');
    expect(settings.modules.at(-1)).toBe('/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so');
    expect(resolveSettings({ ...base, http: { brotli: false, brotliLevel: 3 } }).modules).not.toContain(
      '/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so',
    );
  });

  it.each([
    [{ clientHeaderBufferSize: '1k; include /etc/passwd' }, 'http.clientHeaderBufferSize'],
    [{ largeClientHeaderBuffers: { number: 0, size: '8k' } }, 'http.largeClientHeaderBuffers.number'],
    [{ largeClientHeaderBuffers: { number: 4, size: '8k 1' } }, 'http.largeClientHeaderBuffers.size'],
    [{ clientBodyTimeoutSeconds: 1.5 }, 'http.clientBodyTimeoutSeconds'],
    [{ http2: 'false' }, 'http.http2'],
    [{ sslSessionTimeout: '10m;' }, 'http.sslSessionTimeout'],
    [{ sslSessionTicketKey: randomBytes(32).toString('base64') }, 'http.sslSessionTicketKey'],
    [{ sslSessionTicketKey: 'a"b' }, 'http.sslSessionTicketKey'],
    [{ workerCpuAffinity: 'auto;' }, 'http.workerCpuAffinity'],
    [{ defaultType: 'text/html;' }, 'http.defaultType'],
    [{ gzipDisable: 'msie6";' }, 'http.gzipDisable'],
    [{ gzipDisable: '$host' }, 'http.gzipDisable'],
    [{ brotli: true, brotliTypes: ['text/css;'] }, 'http.brotliTypes'],
    [{ brotli: true, brotliLevel: 12 }, 'http.brotliLevel'],
  ])('refuses %j', (http, option) => {
    const attempt = () => resolveSettings({ ...base, http: http as HttpOptions });
    expect(attempt).toThrow(InvalidRenderOptionsError);
    expect(attempt).toThrow(option);
  });
});

describe('renderNginxConf with http settings', () => {
  it("renders ingress-nginx's defaults where they differ from nginx's, and HTTP/2 on HTTPS", () => {
    const conf = render();
    expect(conf).toContain('    multi_accept on;\n');
    expect(conf).toContain(
      '    ssl_session_cache shared:ingresskit_ssl:10m;\n    ssl_session_timeout 10m;\n',
    );
    expect(conf).toContain('    ssl_session_tickets off;\n    ssl_buffer_size 4k;\n');
    expect(conf).toContain('    variables_hash_bucket_size 256;\n    variables_hash_max_size 2048;\n');
    expect(conf).toContain('listen "443" ssl http2 default_server;');
    expect(conf).toContain('listen "80" default_server;');
    for (const absent of [
      'reuseport',
      'brotli',
      'ssl_session_ticket_key',
      'worker_rlimit_nofile',
      'gzip_disable',
    ])
      expect(conf).not.toContain(absent);
  });

  it('leaves http2 out of the HTTPS listen with http2 false, and turns the session cache off', () => {
    const conf = render({ http2: false, sslSessionCache: false });
    expect(conf).toContain('listen "443" ssl default_server;');
    expect(conf).toContain('    ssl_session_cache off;\n');
    expect(conf).not.toContain('ssl_session_timeout');
  });

  it('names the ticket key file by its hash and lists its bytes to write', () => {
    const key = randomBytes(80).toString('base64');
    const { configuration } = buildConfiguration(table, { ...base, http: { sslSessionTicketKey: key } });
    const files = listHttpSettingsFiles(configuration.settings.http);
    expect(files).toHaveLength(1);
    expect(files[0]!.path).toMatch(/^certs\/session-ticket-[0-9a-f]{64}\.key$/);
    expect(files[0]!.content.equals(Buffer.from(key, 'base64'))).toBe(true);
    expect(renderNginxConf(configuration)).toContain(`    ssl_session_ticket_key "${files[0]!.path}";\n`);
    expect(listHttpSettingsFiles(undefined)).toEqual([]);
  });
});
