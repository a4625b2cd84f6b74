/**
 * The stream block (TCP and UDP services) and the PROXY protocol listener: what nginx.conf says
 * for them, that nginx takes it (`nginx -t`), and that bad options are refused before rendering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildConfiguration,
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
    expect(conf).toMatch(/listen "9000" proxy_protocol;\n\s+proxy_pass ik_tcp_9000;/);
    expect(conf).toMatch(/proxy_protocol on;/);
    expect(conf).toMatch(/listen "5353" udp;\n\s+proxy_pass ik_udp_5353;\n\s+proxy_responses 1;/);
    expect(conf).toMatch(/upstream ik_tcp_9001 \{\n[^}]*server 127\.0\.0\.1:1 down;/);
    await prefix.writeConf(conf);
    const tested = await testNginxConf(prefix);
    expect(tested.output).toContain('test is successful');
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
