import { describe, expect, it } from 'vitest';
import type { Route, RouteTable } from '@ingresskit/route-model';
import {
  buildConfiguration,
  computeConfigurationHash,
  inPlaceMaxBodyBytes,
  renderNginxConf,
  UnsafeValueError,
  type Configuration,
  type RenderOptions,
} from './index.js';
import {
  countDirectives,
  listDirectivePaths,
  parseNginxConf,
  type Directive,
} from './testing/nginx-conf-parser.js';
import { createTestHost, createTestRoute, createTestTable } from './testing/routes.js';

const options: RenderOptions = { controlSocketPath: '/run/ingresskit/control.sock' };

function forwardRoute(id: string, policy: Route['policy'] = {}): Route {
  return createTestRoute(id, {
    action: { type: 'forward', backends: [{ backend: 'app', weight: 1 }] },
    policy,
  });
}

function createTable(hosts: number, policy: Route['policy'] = {}): RouteTable {
  return createTestTable({
    virtualHosts: Array.from({ length: hosts }, (_, index) =>
      createTestHost(`h${index}.example.com`, [forwardRoute(`r${index}`, policy)]),
    ),
    backends: [{ id: 'app', endpoints: [{ address: '10.0.0.1', port: 80 }] }],
  });
}

function render(table: RouteTable, extra: Partial<RenderOptions> = {}): string {
  return renderNginxConf(buildConfiguration(table, { ...options, ...extra }).configuration);
}

function namedLocations(conf: string): Directive[] {
  const http = parseNginxConf(conf).find((directive) => directive.name === 'http')!;
  const servers = http.children!.filter((directive) => directive.name === 'server');
  return servers.flatMap((server) =>
    server.children!.filter(
      (directive) => directive.name === 'location' && directive.args[0]!.value.startsWith('@'),
    ),
  );
}

describe('renderNginxConf', () => {
  it('renders the same nginx.conf for one host and for a thousand', () => {
    expect(render(createTable(1000))).toBe(render(createTable(1)));
  });

  it('writes no host, route id or policy text into nginx.conf', () => {
    const conf = render(
      createTable(3, {
        upstreamHost: 'internal.example.com',
        requestHeaders: { set: [{ name: 'X-Secret', value: 'v' }] },
      }),
    );
    for (const text of ['h0.example.com', 'r0', 'internal.example.com', 'X-Secret'])
      expect(conf).not.toContain(text);
  });

  it('renders five named locations per profile in each listener server', () => {
    const conf = render(createTable(1, { backendProtocol: 'HTTPS', maxBodyBytes: 4096 }));
    const names = namedLocations(conf).map((location) => location.args[0]!.value);
    expect(names.slice(0, 10)).toEqual([
      '@ik_http_d',
      '@ik_http_d_h',
      '@ik_http_d_x',
      '@ik_http_d_xh',
      '@ik_http_d_m',
      '@ik_https_b4096',
      '@ik_https_b4096_h',
      '@ik_https_b4096_x',
      '@ik_https_b4096_xh',
      '@ik_https_b4096_m',
    ]);
    expect(names).toHaveLength(20);
    const mirrored = namedLocations(conf).find((location) => location.args[0]!.value === '@ik_http_d_m')!;
    expect(mirrored.children!.map((directive) => directive.name)).toContain('mirror');
    const https = namedLocations(conf).find((location) => location.args[0]!.value === '@ik_https_b4096_x')!;
    expect(
      https.children!.map((directive) => [directive.name, ...directive.args.map((arg) => arg.value)]),
    ).toEqual([
      ['client_max_body_size', '4096'],
      ['proxy_pass', 'https://$ingresskit_external'],
      ['proxy_ssl_server_name', 'on'],
      ['proxy_ssl_name', '$ingresskit_external_host'],
    ]);
  });

  it('uses grpc_pass for gRPC profiles and a header filter only in the _h variants', () => {
    const conf = render(createTable(1, { backendProtocol: 'GRPCS' }));
    const locations = new Map(namedLocations(conf).map((location) => [location.args[0]!.value, location]));
    expect(listDirectivePaths(locations.get('@ik_grpcs_d')!.children!)).toEqual(
      new Set(['client_max_body_size', 'grpc_pass', 'grpc_ssl_server_name', 'grpc_ssl_name']),
    );
    expect(countDirectives(locations.get('@ik_grpcs_d_h')!.children!, 'header_filter_by_lua_block')).toBe(1);
    expect(countDirectives(locations.get('@ik_http_d')!.children!, 'header_filter_by_lua_block')).toBe(0);
  });

  it('gives location / the largest body limit of all profiles, or none when one has none', () => {
    const configuration = (table: RouteTable) => buildConfiguration(table, options).configuration;
    expect(inPlaceMaxBodyBytes(configuration(createTable(1, { maxBodyBytes: 5 })))).toBe(1024 * 1024);
    expect(inPlaceMaxBodyBytes(configuration(createTable(1, { maxBodyBytes: 5 * 1024 * 1024 })))).toBe(
      5 * 1024 * 1024,
    );
    expect(inPlaceMaxBodyBytes(configuration(createTable(1, { maxBodyBytes: 0 })))).toBe(0);
    expect(render(createTable(1, { maxBodyBytes: 0 }))).toMatch(/location \/ \{\n\s+client_max_body_size 0;/);
  });

  it('renders listeners on every address, at their bind ports, with the default certificate on HTTPS', () => {
    const conf = render(createTable(1), {
      listenAddresses: ['127.0.0.1', '::1'],
      listenPorts: { 443: 8443 },
    });
    expect(conf).toContain('listen "127.0.0.1:80" default_server;');
    expect(conf).toContain('listen "[::1]:8443" ssl http2 default_server;');
    expect(conf).toMatch(
      /map \$server_port \$ingresskit_listener \{\n\s+default "";\n\s+80 80;\n\s+8443 443;\n\s+\}/,
    );
    expect(conf).toContain('ssl_certificate "certs/default.pem";');
    expect(conf).toContain('listen "unix:/run/ingresskit/control.sock";');
  });

  it('renders the options: modules, resolvers, keepalive, logs, the route id header', () => {
    const conf = render(createTable(1), {
      loadLuaModule: false,
      resolvers: ['10.96.0.10', '[fd00::a]:5353'],
      upstreamKeepalive: false,
      accessLogPath: false,
      exposeRouteId: true,
      luaDir: '/opt/ingresskit/lua',
    });
    expect(conf).not.toContain('load_module');
    expect(conf).toContain('resolver "10.96.0.10" "[fd00::a]:5353" valid=30s;');
    expect(conf).not.toMatch(/^\s+keepalive /m);
    expect(conf).toContain('access_log off;');
    expect(conf).toContain('add_header X-Ingresskit-Route $ingresskit_route always;');
    expect(conf).toContain('lua_package_path "/opt/ingresskit/lua/?.lua;/usr/share/lua/5.1/?.lua;;";');
    expect(render(createTable(1))).toContain('load_module "/usr/lib/nginx/modules/ngx_http_lua_module.so";');
  });

  it('throws UnsafeValueError for a configuration buildConfiguration did not make', () => {
    const { configuration } = buildConfiguration(createTable(1), options);
    expect(() => renderNginxConf({ ...configuration, listeners: [] })).toThrow(UnsafeValueError);
    const forged: Omit<Configuration, 'configHash'> = {
      ...configuration,
      profiles: [{ name: 'ik_http_d; include /etc/passwd', protocol: 'HTTP' }],
    };
    expect(() => renderNginxConf({ ...forged, configHash: computeConfigurationHash(forged) })).toThrow(
      UnsafeValueError,
    );
    const quoted: Omit<Configuration, 'configHash'> = {
      ...configuration,
      settings: { ...configuration.settings, pidPath: 'x$host' },
    };
    expect(() => renderNginxConf({ ...quoted, configHash: computeConfigurationHash(quoted) })).toThrow(
      UnsafeValueError,
    );
    for (const forgedSettings of [
      { gzip: { level: 1, minLength: 0, types: ['text/css; include x'] } },
      { sslProtocols: ['TLSv1.2;'] },
      { sslCiphers: 'HIGH"; include x' },
    ]) {
      const tls: Omit<Configuration, 'configHash'> = {
        ...configuration,
        settings: { ...configuration.settings, ...forgedSettings },
      };
      expect(() => renderNginxConf({ ...tls, configHash: computeConfigurationHash(tls) })).toThrow(
        UnsafeValueError,
      );
    }
  });

  it('renders gzip, server tokens, client keep-alive and TLS settings only when given', () => {
    const plain = render(createTable(1));
    expect(plain).toContain('server_tokens off;\n    keepalive_timeout 75s;\n');
    expect(plain).not.toMatch(/^ {4}(gzip|keepalive_requests|ssl_ciphers) /m);
    expect(plain).toContain('ssl_protocols TLSv1.2 TLSv1.3;\n    ssl_prefer_server_ciphers off;');
    const conf = render(createTable(1), {
      gzip: { types: ['*'] },
      serverTokens: true,
      clientKeepalive: { timeoutSeconds: 0, requests: 50 },
      sslProtocols: ['TLSv1.3'],
      sslCiphers: 'HIGH:!aNULL',
    });
    expect(conf).toContain('server_tokens on;\n    keepalive_timeout 0s;\n    keepalive_requests 50;');
    expect(conf).toContain(
      'gzip on;\n    gzip_comp_level 1;\n    gzip_http_version 1.1;\n    gzip_min_length 256;',
    );
    expect(conf).toContain('gzip_types "*";');
    expect(conf).toContain(
      'ssl_protocols TLSv1.3;\n    ssl_ciphers "HIGH:!aNULL";\n    ssl_prefer_server_ciphers on;',
    );
  });
});

describe('requestCounting', () => {
  it('configures the counting only when it differs from ingress-nginx defaults, and only with request metrics', () => {
    const table = createTable(1);
    const call = 'require("ingresskit.request_metrics").configure(';
    expect(render(table)).not.toContain(call);
    expect(render(table, { requestCounting: { perHost: true } })).toBe(render(table));
    const conf = render(table, {
      requestCounting: { buckets: { time: [0.5, 2] }, perHost: false, excluded: ['u', 'b'] },
    });
    expect(conf).toContain(call);
    expect(conf).toContain('time = { 0.5, 2 },');
    expect(conf).toContain('length = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 },');
    expect(conf).toContain('per_host = false,');
    expect(conf).toMatch(/excluded = \{\s+b = true,\s+u = true,\s+\}/);
    expect(render(table, { requestMetrics: false, requestCounting: { perHost: false } })).not.toContain(call);
  });
});

describe('realIp', () => {
  it('renders nothing of the realip module without it, and the header, networks and forwarded headers with it', () => {
    const table = createTable(1);
    const plain = render(table);
    expect(plain).not.toContain('real_ip_header');
    expect(plain).toContain('proxy_set_header X-Forwarded-For $remote_addr;');

    const realOnly = render(table, {
      realIp: {
        header: 'X-Client-IP',
        trustedNetworks: ['10.0.0.0/8', '2001:db8::/32'],
        forwardedHeaders: false,
        fullForwardedFor: true,
      },
    });
    expect(realOnly).toMatch(
      /real_ip_header X-Client-IP;\n\s+real_ip_recursive on;\n\s+set_real_ip_from 10\.0\.0\.0\/8;\n\s+set_real_ip_from 2001:db8::\/32;/,
    );
    // Without forwardedHeaders the X-Forwarded-* headers are as without realIp.
    expect(realOnly).toContain('proxy_set_header X-Forwarded-Proto $ingresskit_scheme;');
    expect(realOnly).not.toContain('$ingresskit_forwarded_for');

    const forwarded = render(table, {
      realIp: {
        header: 'X-Forwarded-For',
        trustedNetworks: ['127.0.0.1'],
        forwardedHeaders: true,
        fullForwardedFor: false,
      },
    });
    expect(forwarded).toContain('map "" $ingresskit_forwarded_for { default $remote_addr; }');
    expect(forwarded).toContain('proxy_set_header X-Forwarded-Proto $ingresskit_forwarded_proto;');
    expect(forwarded).toContain('grpc_set_header X-Forwarded-For $ingresskit_forwarded_for;');
    expect(forwarded).not.toContain('$proxy_add_x_forwarded_for');

    const full = render(table, {
      realIp: {
        header: 'X-Forwarded-For',
        trustedNetworks: ['127.0.0.1'],
        forwardedHeaders: true,
        fullForwardedFor: true,
      },
    });
    expect(full).toContain('default "$http_x_forwarded_for, $realip_remote_addr";');
  });
});

describe('authPeerRules', () => {
  it('renders the refused and own networks as hex, and own ports with the stream services', () => {
    const table = createTable(1);
    expect(render(table)).not.toContain('refused_peers');
    const conf = render(table, {
      authPeerRules: {
        refusedNetworks: ['fd00:ec2::/32', '100.100.100.200/32'],
        ownAddresses: ['10.1.2.3'],
        ownPorts: [10254, 80, 10254],
      },
      streamServices: [{ protocol: 'TCP', port: 5432, endpoints: [] }],
    });
    expect(conf).toMatch(
      /refused_peers = \{\n\s+\{ "fd000ec2000000000000000000000000", 32 \},\n\s+\{ "646464c8", 32 \},\n\s+\},/,
    );
    expect(conf).toMatch(/own_peers = \{\n\s+\{ "0a010203", 32 \},\n\s+\},/);
    expect(conf).toMatch(
      /own_ports = \{\n\s+\[80\] = true,\n\s+\[5432\] = true,\n\s+\[10254\] = true,\n\s+\},/,
    );
  });

  it('refuses what is not a network, an address or a port', () => {
    expect(() => render(createTable(1), { authPeerRules: { refusedNetworks: ['fd00:ec2::/200'] } })).toThrow(
      /authPeerRules\.refusedNetworks/,
    );
    expect(() => render(createTable(1), { authPeerRules: { ownAddresses: ['fe80::1%eth0'] } })).toThrow(
      /authPeerRules\.ownAddresses/,
    );
    expect(() => render(createTable(1), { authPeerRules: { ownPorts: [70000] } })).toThrow(
      /authPeerRules\.ownPorts/,
    );
  });
});
