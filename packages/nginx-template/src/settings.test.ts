import { describe, expect, it } from 'vitest';
import { InvalidRenderOptionsError, resolveSettings, type RenderOptions } from './index.js';

const base: RenderOptions = { controlSocketPath: '/run/ingresskit/control.sock' };

describe('resolveSettings', () => {
  it('fills in the defaults when only the control socket is given', () => {
    expect(resolveSettings(base)).toMatchObject({
      controlSocketPath: '/run/ingresskit/control.sock',
      defaultCertificatePath: 'certs/default.pem',
      listenAddresses: [],
      listenPorts: {},
      workerProcesses: 'auto',
      modules: ['/usr/lib/nginx/modules/ndk_http_module.so', '/usr/lib/nginx/modules/ngx_http_lua_module.so'],
      upstreamKeepalive: { connections: 320, timeoutSeconds: 60, requests: 10000 },
      defaultMaxBodyBytes: 1024 * 1024,
      sharedDictBytes: 64 * 1024 * 1024,
      exposeRouteId: false,
    });
  });

  it('turns sizes into bytes and keeps 0 as no body limit', () => {
    expect(resolveSettings({ ...base, proxyBodySize: '8k', sharedDictSize: '2G' })).toMatchObject({
      defaultMaxBodyBytes: 8192,
      sharedDictBytes: 2 * 1024 ** 3,
    });
    expect(resolveSettings({ ...base, proxyBodySize: '0' }).defaultMaxBodyBytes).toBe(0);
  });

  it('keeps listener port mappings sorted by port and leaves modules out when asked', () => {
    const settings = resolveSettings({ ...base, listenPorts: { 443: 8443, 80: 8080 }, loadLuaModule: false });
    expect(Object.entries(settings.listenPorts)).toEqual([
      ['80', 8080],
      ['443', 8443],
    ]);
    expect(settings.modules).toEqual([]);
  });

  it('leaves gzip, server tokens, client keep-alive and TLS settings out at their defaults', () => {
    const settings = resolveSettings({
      ...base,
      gzip: false,
      serverTokens: false,
      clientKeepalive: { timeoutSeconds: 75 },
      sslProtocols: ['TLSv1.3', 'TLSv1.2'],
    });
    expect(settings).toEqual(resolveSettings(base));
    for (const key of ['gzip', 'serverTokens', 'clientKeepaliveTimeoutSeconds', 'sslProtocols', 'sslCiphers'])
      expect(settings).not.toHaveProperty(key);
  });

  it("fills in ingress-nginx's gzip defaults and keeps TLS versions in order", () => {
    const settings = resolveSettings({
      ...base,
      gzip: {},
      clientKeepalive: { timeoutSeconds: 0, requests: 10 },
      sslProtocols: ['TLSv1.3', 'TLSv1.1'],
    });
    expect(settings.gzip).toMatchObject({ level: 1, minLength: 256 });
    expect(settings.gzip?.types).toContain('application/json');
    expect(settings).toMatchObject({
      clientKeepaliveTimeoutSeconds: 0,
      clientKeepaliveRequests: 10,
      sslProtocols: ['TLSv1.1', 'TLSv1.3'],
    });
  });

  it.each<[string, Partial<RenderOptions>]>([
    ['controlSocketPath', { controlSocketPath: 'control.sock' }],
    ['controlSocketPath', { controlSocketPath: `/${'a'.repeat(120)}` }],
    ['controlSocketPath', { controlSocketPath: '/run/x;y' }],
    ['defaultCertificatePath', { defaultCertificatePath: 'certs/"x' }],
    ['listenAddresses', { listenAddresses: ['localhost'] }],
    ['listenPorts', { listenPorts: { 0: 80 } }],
    ['listenPorts.443', { listenPorts: { 443: 70000 } }],
    ['workerProcesses', { workerProcesses: 0 }],
    ['workerConnections', { workerConnections: 1.5 }],
    ['modulesDir', { modulesDir: 'modules' }],
    ['errorLogLevel', { errorLogLevel: 'loud' as never }],
    ['upstreamKeepalive.connections', { upstreamKeepalive: { connections: 0 } }],
    ['resolvers', { resolvers: ['dns.example.com'] }],
    ['proxyBodySize', { proxyBodySize: '1 m' }],
    ['proxyBodySize', { proxyBodySize: '2048g' }],
    ['sharedDictSize', { sharedDictSize: '0' }],
    ['sharedDictSize', { sharedDictSize: '512k' }],
    ['proxyReadTimeoutSeconds', { proxyReadTimeoutSeconds: 0 }],
    ['regexCacheEntries', { regexCacheEntries: -1 }],
    ...(
      [
        { header: 'X-Forwarded-For;', trustedNetworks: ['10.0.0.0/8'] },
        { header: 'proxy_protocol', trustedNetworks: ['10.0.0.0/8'] },
        { header: 'X-Real-IP', trustedNetworks: [] },
        { header: 'X-Real-IP', trustedNetworks: ['10.0.0.0/33'] },
        { header: 'X-Real-IP', trustedNetworks: ['10.0.0.0/8;'] },
        { header: 'X-Real-IP', trustedNetworks: ['fe80::1%eth0'] },
      ] as const
    ).map(
      (realIp) =>
        [
          realIp.trustedNetworks.length === 0 || realIp.header === 'X-Real-IP'
            ? 'realIp.trustedNetworks'
            : 'realIp.header',
          {
            realIp: {
              ...realIp,
              trustedNetworks: [...realIp.trustedNetworks],
              forwardedHeaders: true,
              fullForwardedFor: false,
            },
          },
        ] as [string, RenderOptions],
    ),
    ['gzip.level', { gzip: { level: 10 } }],
    ['gzip.types', { gzip: { types: ['text/css;'] } }],
    ['gzip.types', { gzip: { types: ['"text/css"'] } }],
    ['gzip.types', { gzip: { types: [] } }],
    ['clientKeepalive.timeoutSeconds', { clientKeepalive: { timeoutSeconds: -1 } }],
    ['clientKeepalive.requests', { clientKeepalive: { requests: 0 } }],
    ['sslProtocols', { sslProtocols: ['SSLv3'] }],
    ['sslProtocols', { sslProtocols: [] }],
    ['sslCiphers', { sslCiphers: "HIGH'; include x" }],
    ['sslCiphers', { sslCiphers: '' }],
  ])('throws naming %s when it is invalid', (option, options) => {
    let thrown: unknown;
    try {
      resolveSettings({ ...base, ...options });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidRenderOptionsError);
    expect((thrown as InvalidRenderOptionsError).option).toBe(option);
    expect((thrown as Error).message).toContain(option);
  });

  it('throws naming controlSocketPath when no options are given', () => {
    expect(() => resolveSettings(undefined as never)).toThrow(/controlSocketPath/);
  });
});
