import { describe, expect, it } from 'vitest';
import {
  buildConfiguration,
  InvalidRenderOptionsError,
  renderNginxConf,
  UnsafeValueError,
  type Configuration,
  type RenderOptions,
} from './index.js';
import { A, endpointSlice, externalService, ingress, path, service, tlsSecret } from './testing/fixtures.js';

function sample(): Configuration {
  return buildConfiguration({
    ingresses: [
      ingress(
        'a',
        { 'secure.example.com': [path('/api', 'Prefix', 'app')] },
        { tls: [{ hosts: ['secure.example.com'], secretName: 'cert' }] },
      ),
      ingress(
        'b',
        { '*.wild.example.com': [path('/', 'Prefix', 'ext', 443)] },
        { annotations: { [`${A}backend-protocol`]: 'HTTPS' } },
      ),
      ingress(
        'c',
        { 'grpc.example.com': [path('/', 'Prefix', 'app')] },
        { annotations: { [`${A}backend-protocol`]: 'GRPC', [`${A}proxy-read-timeout`]: '300' } },
      ),
    ],
    services: [service('app'), externalService('ext', 'api.example.org')],
    endpointSlices: [endpointSlice('app', 8080, ['10.0.0.1'])],
    secrets: [tlsSecret('cert', 'secure')],
  }).configuration;
}

function clone(configuration: Configuration): Configuration {
  return JSON.parse(JSON.stringify(configuration)) as Configuration;
}

describe('renderNginxConf', () => {
  it('renders the same bytes for equal configurations', () => {
    expect(renderNginxConf(sample())).toBe(renderNginxConf(sample()));
  });

  it('writes the configuration checksum line', () => {
    const configuration = sample();
    expect(renderNginxConf(configuration)).toContain(
      `\n# configuration checksum: ${configuration.checksum}\n`,
    );
  });

  it('turns upstream keepalive on by default and off on request', () => {
    expect(renderNginxConf(sample())).toMatch(
      /upstream ingresskit_backends \{[^}]*balancer_by_lua_block \{[^}]*\}\s*keepalive 320;/,
    );
    expect(renderNginxConf(sample(), { upstreamKeepalive: false })).not.toMatch(/^\s*keepalive \d+;/m);
  });

  it('loads the Lua module by absolute path and can leave that out', () => {
    expect(renderNginxConf(sample())).toContain(
      'load_module "/usr/lib/nginx/modules/ndk_http_module.so";\nload_module "/usr/lib/nginx/modules/ngx_http_lua_module.so";',
    );
    expect(renderNginxConf(sample(), { loadLuaModule: false })).not.toContain('load_module');
  });

  it('keeps pid, logs and temp paths relative to the prefix unless told otherwise', () => {
    const text = renderNginxConf(sample());
    expect(text).toContain('pid "nginx.pid";');
    expect(text).toContain('error_log "error.log" notice;');
    expect(text).toContain('proxy_temp_path "proxy_temp";');
    const moved = renderNginxConf(sample(), {
      tempDir: '/var/tmp/ik',
      pidPath: '/run/ik.pid',
      accessLogPath: false,
    });
    expect(moved).toContain('proxy_temp_path "/var/tmp/ik/proxy_temp";');
    expect(moved).toContain('pid "/run/ik.pid";');
    expect(moved).toContain('access_log off;');
  });

  it('listens on the given ports and addresses, the status server on 127.0.0.1 only', () => {
    const text = renderNginxConf(sample(), {
      httpPort: 8080,
      httpsPort: 8443,
      statusPort: 9000,
      listenAddresses: ['127.0.0.1', '::1'],
    });
    expect(text).toContain('listen "127.0.0.1:8080" default_server;');
    expect(text).toContain('listen "[::1]:8443" ssl http2 default_server;');
    expect(text).toContain('listen "127.0.0.1:9000";');
    expect(text).toContain('return 308 https://$host:8443$request_uri;');
  });

  it('omits the port from redirects to 443', () => {
    expect(renderNginxConf(sample())).toContain('return 308 https://$host$request_uri;');
  });

  it('matches a wildcard host with a one-label regex', () => {
    expect(renderNginxConf(sample())).toContain('server_name "~^[^.]+\\\\.wild\\\\.example\\\\.com$";');
  });

  it('proxies ExternalName backends through a variable so nginx resolves them per request', () => {
    const text = renderNginxConf(sample(), { resolvers: ['10.0.0.10', '[fd00::10]:5353'] });
    expect(text).toContain('set $ingresskit_external "api.example.org:443";');
    expect(text).toContain('proxy_pass https://$ingresskit_external;');
    expect(text).toContain('resolver "10.0.0.10" "[fd00::10]:5353" valid=30s;');
  });

  it('uses grpc_pass and grpc timeouts for GRPC backends', () => {
    const text = renderNginxConf(sample());
    expect(text).toContain('grpc_read_timeout 300s;');
    expect(text).toContain('grpc_pass grpc://ingresskit_backends;');
  });

  it('references certificates under sslCertificateDir', () => {
    const configuration = sample();
    const file = configuration.certificates[0]?.fileName;
    expect(renderNginxConf(configuration, { sslCertificateDir: '/etc/ik/certs' })).toContain(
      `ssl_certificate "/etc/ik/certs/${file}";`,
    );
  });

  it.each<[string, RenderOptions]>([
    ['httpPort', { httpPort: 0 }],
    ['httpsPort', { httpsPort: 70000 }],
    ['statusPort', { statusPort: 1.5 }],
    ['listenAddresses', { listenAddresses: ['localhost'] }],
    ['workerProcesses', { workerProcesses: 0 }],
    ['sslCertificateDir', { sslCertificateDir: 'certs dir' }],
    ['luaDir', { luaDir: 'lua;evil' }],
    ['pidPath', { pidPath: '$x' }],
    ['errorLogPath', { errorLogPath: 'a\nb' }],
    ['resolvers', { resolvers: ['dns.example.com'] }],
    ['proxyBodySize', { proxyBodySize: '1 m' }],
    ['backendsSharedDictSize', { backendsSharedDictSize: '20q' }],
    ['upstreamKeepalive.connections', { upstreamKeepalive: { connections: -1 } }],
    ['errorLogLevel', { errorLogLevel: 'loud' as never }],
  ])('throws InvalidRenderOptionsError for a bad %s', (option, options) => {
    expect(() => renderNginxConf(sample(), options)).toThrow(
      expect.objectContaining({ name: 'InvalidRenderOptionsError', option }),
    );
    expect(() => renderNginxConf(sample(), options)).toThrow(InvalidRenderOptionsError);
  });

  it.each<[string, (configuration: Configuration) => void]>([
    ['a host', (c) => void (c.servers[0]!.host = 'evil.com; } server { listen 1')],
    ['a location path', (c) => void (c.servers[0]!.locations[0]!.path = '/x" { return 200; } #')],
    [
      'a regex path',
      (c) => void Object.assign(c.servers[0]!.locations[0]!, { match: 'regex', path: '^/x\n' }),
    ],
    ['a backend name', (c) => void (c.backends[0]!.name = 'a";')],
    [
      'a missing backend',
      (c) => void (c.servers[0]!.locations[0]!.target = { kind: 'backend', backend: 'default/none:1' }),
    ],
    ['a source range', (c) => void (c.servers[0]!.locations[0]!.allowSourceRanges = ['all'])],
    ['an upstream vhost', (c) => void (c.servers[0]!.locations[0]!.proxy.upstreamVhost = '$host')],
    ['a body size', (c) => void (c.servers[0]!.locations[0]!.proxy.bodySize = '1m; evil')],
    [
      'a rewrite',
      (c) => void (c.servers[0]!.locations[0]!.rewrite = { pattern: '^/x', replacement: '/$host' }),
    ],
    ['a certificate file', (c) => void (c.servers.find((s) => s.tls)!.tls!.certificate = '../../etc/passwd')],
    ['the checksum', (c) => void (c.checksum = 'x"')],
    ['an ExternalName', (c) => void (c.backends.find((b) => b.externalName)!.externalName = 'a b')],
  ])('throws UnsafeValueError for a hand-made model with a bad %s', (_what, mutate) => {
    const configuration = clone(sample());
    mutate(configuration);
    expect(() => renderNginxConf(configuration)).toThrow(UnsafeValueError);
  });
});
