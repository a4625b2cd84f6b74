import { describe, expect, it } from 'vitest';
import type { Route, RouteTable } from '@ingresskit/route-model';
import {
  buildConfiguration,
  computeConfigurationHash,
  DEFAULT_CATALOGUE,
  renderNginxConf,
  UnsafeValueError,
  type Configuration,
  type RenderOptions,
} from './index.js';
import {
  balancedUpstreamOf,
  countDirectives,
  httpSettingsOf,
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
    for (const text of ['h0.example.com', 'internal.example.com', 'X-Secret'])
      expect(conf).not.toContain(text);
    // Route ids are r0, r1, ...: never a word of their own (profile names end in _r0, a retry class).
    expect(conf).not.toMatch(/(?<![_a-z])r0\b/);
  });

  it('renders every profile of the catalogue in each listener server, whatever the routes', () => {
    const conf = render(createTable(1, { backendProtocol: 'HTTPS', maxBodyBytes: 4096 }));
    expect(render(createTable(1))).toBe(conf);
    const names = namedLocations(conf).map((location) => location.args[0]!.value);
    const profiles = DEFAULT_CATALOGUE.profiles.map((profile) => `@${profile.name}`);
    // Two listener servers and the hop server (which proxies HTTP and HTTPS only).
    for (const name of profiles)
      expect(names.filter((n) => n === name)).toHaveLength(name.startsWith('@ik_g') ? 2 : 3);
    expect(names.filter((name) => name === '@ik_p_q1s1v11_b0_r3_m')).toHaveLength(3);
    expect(names.filter((name) => name === '@ik_g_b0_r3_m')).toHaveLength(2);
  });

  it('proxies each profile to the target the router chose, with its directives', () => {
    const conf = render(createTable(1));
    const location = namedLocations(conf).find((l) => l.args[0]!.value === '@ik_p_q0s0v10_b131072_r115')!;
    expect(
      location
        .children!.filter((directive) => !directive.name.endsWith('_by_lua_block'))
        .map((directive) => [directive.name, ...directive.args.map((arg) => arg.value)]),
    ).toEqual([
      ['client_max_body_size', '0'],
      ['proxy_request_buffering', 'off'],
      ['proxy_buffering', 'off'],
      ['proxy_http_version', '1.0'],
      ['proxy_buffer_size', '131072'],
      ['proxy_buffers', '4', '131072'],
      ['proxy_busy_buffers_size', '262144'],
      ['proxy_next_upstream', 'error', 'timeout', 'http_502', 'http_503', 'http_504'],
      ['proxy_pass', '$ingresskit_target'],
      ['proxy_ssl_server_name', 'on'],
      ['proxy_ssl_name', '$ingresskit_ssl_name'],
    ]);
    const grpc = namedLocations(conf).find((l) => l.args[0]!.value === '@ik_g_b0_r3')!;
    expect(listDirectivePaths(grpc.children!)).toEqual(
      new Set([
        'client_max_body_size',
        'grpc_next_upstream',
        'header_filter_by_lua_block',
        'log_by_lua_block',
        'grpc_pass',
        'grpc_ssl_server_name',
        'grpc_ssl_name',
      ]),
    );
    expect(countDirectives(grpc.children!, 'header_filter_by_lua_block')).toBe(1);
  });

  it('sets no body limit in location /: every limit is route data', () => {
    expect(render(createTable(1, { maxBodyBytes: 5 }))).toMatch(
      /location \/ \{\n\s+# [^\n]*\n\s+client_max_body_size 0;/,
    );
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
    expect(balancedUpstreamOf(conf)).not.toMatch(/^\s+keepalive /m);
    expect(conf).toContain('access_log off;');
    expect(conf).toContain('add_header X-Ingresskit-Route $ingresskit_route always;');
    expect(conf).toContain('lua_package_path "/opt/ingresskit/lua/?.lua;/usr/share/lua/5.1/?.lua;;";');
    expect(render(createTable(1))).toContain('load_module "/usr/lib/nginx/modules/ngx_http_lua_module.so";');
  });

  it('throws UnsafeValueError for a configuration buildConfiguration did not make', () => {
    const { configuration } = buildConfiguration(createTable(1), options);
    expect(() => renderNginxConf({ ...configuration, listeners: [] })).toThrow(UnsafeValueError);
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
    expect(httpSettingsOf(plain)).not.toContain('real_ip_header');
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
