/**
 * The stream block (TCP and UDP services) and the PROXY protocol listener: what nginx.conf says
 * for them, that nginx takes it (`nginx -t`), and that bad options are refused before rendering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildConfiguration,
  computeConfigurationHash,
  UnsafeValueError,
  type Configuration,
  InvalidRenderOptionsError,
  renderNginxConf,
  type RenderOptions,
  type StreamService,
} from './index.js';
import { createNginxPrefix, testNginxConf, type NginxPrefix } from './testing/nginx-process.js';
import { createTestTable } from './testing/routes.js';

let prefix: NginxPrefix;

beforeAll(async () => {
  prefix = await createNginxPrefix();
});

afterAll(async () => {
  await prefix?.remove();
});

function render(extra: Partial<RenderOptions>): string {
  const table = createTestTable({
    listeners: [
      { name: 'http', port: 80, protocol: 'HTTP' },
      { name: 'https', port: 443, protocol: 'HTTPS' },
    ],
  });
  return renderNginxConf(
    buildConfiguration(table, { controlSocketPath: prefix.socketPath, ...extra }).configuration,
  );
}

const services: StreamService[] = [
  { protocol: 'UDP', port: 5353, endpoints: [{ address: '10.0.0.9', port: 53 }] },
  {
    protocol: 'TCP',
    port: 9000,
    endpoints: [
      { address: 'fd00::2', port: 8080 },
      { address: '10.0.0.1', port: 8080 },
    ],
    decodeProxyProtocol: true,
    encodeProxyProtocol: true,
    source: { namespace: 'default', service: 'db', port: 'postgres' },
  },
  { protocol: 'TCP', port: 9001, endpoints: [] },
];

describe('renderNginxConf stream services', () => {
  it('loads the stream module and renders a server and upstream per port, which nginx accepts', async () => {
    const conf = render({ streamServices: services, listenPorts: { 80: 18080, 443: 18443 } });
    expect(conf).toContain('load_module "/usr/lib/nginx/modules/ngx_stream_module.so";');
    expect(conf).toMatch(
      /upstream ik_tcp_9000 \{\n\s+server "10\.0\.0\.1:8080";\n\s+server "\[fd00::2\]:8080";/,
    );
    expect(conf).toMatch(
      /listen "9000" proxy_protocol;\n\s+set \$proxy_upstream_name "tcp-default-db-postgres";\n\s+proxy_pass ik_tcp_9000;/,
    );
    expect(conf).toMatch(/proxy_protocol on;/);
    expect(conf).toMatch(
      /listen "5353" udp;\n\s+set \$proxy_upstream_name "";\n\s+proxy_pass ik_udp_5353;\n\s+proxy_responses 1;/,
    );
    // ingress-nginx's defaults of the proxy-stream-* keys.
    expect(conf).toMatch(
      /proxy_timeout 600s;\n\s+proxy_next_upstream on;\n\s+proxy_next_upstream_timeout 600s;\n\s+proxy_next_upstream_tries 3;/,
    );
    expect(conf).toMatch(/upstream ik_tcp_9001 \{\n[^}]*server 127\.0\.0\.1:1 down;/);
    await prefix.writeConf(conf);
    const tested = await testNginxConf(prefix);
    expect(tested.output).toContain('test is successful');
  });

  it('renders the proxy-stream settings and a log of $proxy_upstream_name, which nginx accepts', async () => {
    const conf = render({
      streamServices: [{ ...services[0]!, source: { namespace: 'kube-system', service: 'dns', port: 53 } }],
      streamProxy: {
        timeoutMs: 1500,
        nextUpstream: false,
        nextUpstreamTimeoutMs: 0,
        nextUpstreamTries: 0,
        responses: 0,
      },
      streamAccessLog: { format: [{ text: 'up=' }, { variable: 'proxy_upstream_name' }] },
      listenPorts: { 80: 18080, 443: 18443 },
    });
    expect(conf).toMatch(
      /proxy_timeout 1500ms;\n\s+proxy_next_upstream off;\n\s+proxy_next_upstream_timeout 0s;\n\s+proxy_next_upstream_tries 0;/,
    );
    expect(conf).toContain('set $proxy_upstream_name "udp-kube-system-dns-53";');
    expect(conf).toContain('proxy_responses 0;');
    expect(conf).toContain('log_format ingresskit_stream "up=${proxy_upstream_name}";');
    await prefix.writeConf(conf);
    expect((await testNginxConf(prefix)).output).toContain('test is successful');
  });

  it('leaves the proxy-stream settings out of the settings without stream services', () => {
    const table = createTestTable({ listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] });
    const { configuration } = buildConfiguration(table, {
      controlSocketPath: prefix.socketPath,
      streamProxy: { timeoutMs: 1000 },
    });
    expect(configuration.settings.streamProxy).toBeUndefined();
  });

  it.each([
    [{ timeoutMs: 0 }, 'streamProxy.timeoutMs'],
    [{ timeoutMs: 1.5 }, 'streamProxy.timeoutMs'],
    [{ nextUpstreamTimeoutMs: 25 * 86_400_000 }, 'streamProxy.nextUpstreamTimeoutMs'],
    [{ nextUpstreamTries: -1 }, 'streamProxy.nextUpstreamTries'],
    [{ responses: '1; include /etc/passwd' }, 'streamProxy.responses'],
    [{ nextUpstream: 'off' }, 'streamProxy.nextUpstream'],
  ])('refuses streamProxy %j', (streamProxy, option) => {
    const options = { streamServices: services, streamProxy: streamProxy as never };
    expect(() => render(options)).toThrow(InvalidRenderOptionsError);
    expect(() => render(options)).toThrow(option);
  });

  it.each([
    [{ namespace: 'Default', service: 'db', port: 1 }, 'source.namespace'],
    [{ namespace: 'a', service: 'db";\n', port: 1 }, 'source.service'],
    [{ namespace: 'a', service: 'db', port: 'a b' }, 'source.port'],
    [{ namespace: 'a', service: 'db', port: 0 }, 'source.port'],
  ])('refuses the source %j', (source, option) => {
    const service: StreamService = { protocol: 'TCP', port: 1, endpoints: [], source };
    expect(() => render({ streamServices: [service] })).toThrow(InvalidRenderOptionsError);
    expect(() => render({ streamServices: [service] })).toThrow(option);
  });

  it('throws UnsafeValueError for stream settings buildConfiguration did not make', () => {
    const table = createTestTable({ listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] });
    const { configuration } = buildConfiguration(table, {
      controlSocketPath: prefix.socketPath,
      streamServices: services,
    });
    const [udp, tcp, idle] = configuration.settings.streamServices!;
    for (const forgedSettings of [
      { streamProxy: { timeoutMs: '1s; include /etc/passwd' as never } },
      { streamProxy: { nextUpstreamTries: 1.5 } },
      {
        streamServices: [
          udp!,
          { ...tcp!, source: { namespace: 'default', service: 'db"; include x', port: 1 } },
          idle!,
        ],
      },
    ]) {
      const forged: Omit<Configuration, 'configHash'> = {
        ...configuration,
        settings: { ...configuration.settings, ...forgedSettings },
      };
      expect(() => renderNginxConf({ ...forged, configHash: computeConfigurationHash(forged) })).toThrow(
        UnsafeValueError,
      );
    }
  });

  it('has no stream block and loads no stream module without services', () => {
    const conf = render({});
    expect(conf).not.toMatch(/^stream \{/m);
    expect(conf).not.toContain('ngx_stream_module');
  });

  it('binds a PROXY protocol listener on loopback only and believes the client address from there alone', async () => {
    const conf = render({ listenPorts: { 80: 18080, 443: 18442 }, proxyProtocolPorts: [443] });
    expect(conf).toContain('listen "127.0.0.1:18442" ssl http2 proxy_protocol default_server;');
    expect(conf).toContain('listen "18080" default_server;');
    expect(conf.match(/set_real_ip_from 127\.0\.0\.1;\n\s+real_ip_header proxy_protocol;/g)).toHaveLength(1);
    expect(conf).toContain('proxy_set_header X-Forwarded-Port $ingresskit_forwarded_port;');
    await prefix.writeConf(conf);
    expect((await testNginxConf(prefix)).output).toContain('test is successful');
  });

  it('keeps the PROXY listener on its own client address beside realIp with forwarded headers', async () => {
    const conf = render({
      listenPorts: { 80: 18080, 443: 18442 },
      proxyProtocolPorts: [443],
      realIp: {
        header: 'X-Forwarded-For',
        trustedNetworks: ['10.0.0.0/8', '::1'],
        forwardedHeaders: true,
        fullForwardedFor: true,
      },
    });
    expect(conf).toContain('real_ip_header X-Forwarded-For;');
    expect(conf.match(/set_real_ip_from 127\.0\.0\.1;\n\s+real_ip_header proxy_protocol;/g)).toHaveLength(1);
    expect(conf).toContain('default $proxy_protocol_server_port;');
    expect(conf).toContain('proxy_set_header X-Forwarded-Port $ingresskit_forwarded_port;');
    await prefix.writeConf(conf);
    expect((await testNginxConf(prefix)).output).toContain('test is successful');
  });

  it.each([
    [{ protocol: 'SCTP', port: 1, endpoints: [] }, 'protocol must be TCP or UDP'],
    [{ protocol: 'TCP', port: 70000, endpoints: [] }, 'must be an integer from 1 to 65535'],
    [{ protocol: 'TCP', port: 1, endpoints: [{ address: 'evil;', port: 1 }] }, 'must have an IP address'],
    [{ protocol: 'UDP', port: 1, endpoints: [], decodeProxyProtocol: true }, 'for TCP only'],
  ])('refuses %j', (service, message) => {
    expect(() => render({ streamServices: [service as StreamService] })).toThrow(InvalidRenderOptionsError);
    expect(() => render({ streamServices: [service as StreamService] })).toThrow(message);
  });

  it('refuses a port given twice for one protocol, and takes it once per protocol', () => {
    const tcp: StreamService = { protocol: 'TCP', port: 53, endpoints: [] };
    expect(() => render({ streamServices: [tcp, tcp] })).toThrow('TCP/53 is given twice');
    expect(() => render({ streamServices: [tcp, { ...tcp, protocol: 'UDP' }] })).not.toThrow();
  });
});
