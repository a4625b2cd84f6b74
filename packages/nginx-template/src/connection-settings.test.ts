import { describe, expect, it } from 'vitest';
import {
  buildConfiguration,
  InvalidRenderOptionsError,
  listSettingsFiles,
  renderNginxConf,
  type RenderOptions,
} from './index.js';
import { createTestTable } from './testing/routes.js';

const table = createTestTable({
  listeners: [
    { name: 'http', port: 80, protocol: 'HTTP' },
    { name: 'https', port: 443, protocol: 'HTTPS' },
  ],
});

function build(extra: Partial<RenderOptions>) {
  return buildConfiguration(table, { controlSocketPath: '/run/ik/control.sock', ...extra }).configuration;
}

// The shape is all nginx-template checks; the controller's tests hand nginx real parameters.
const dhParams = `-----BEGIN DH PARAMETERS-----\n${'MIIBCAKCAQEA'.repeat(5)}\n${'ssbzSibBsu/6'.repeat(5)}\n-----END DH PARAMETERS-----\n`;

describe('proxyProtocol', () => {
  it('makes every listener take the PROXY protocol and the client address come from it', () => {
    const conf = renderNginxConf(
      build({
        proxyProtocol: true,
        realIp: {
          header: 'X-Client-IP',
          trustedNetworks: ['10.0.0.0/8'],
          forwardedHeaders: false,
          fullForwardedFor: false,
        },
      }),
    );
    expect(conf).toContain('listen "80" proxy_protocol default_server;');
    expect(conf).toContain('listen "443" ssl http2 proxy_protocol default_server;');
    expect(conf).toMatch(
      /real_ip_header proxy_protocol;\n\s+real_ip_recursive on;\n\s+set_real_ip_from 10\.0\.0\.0\/8;/,
    );
    expect(conf).not.toContain('real_ip_header X-Client-IP');
    // Not the loopback binding of the listener behind the ssl-passthrough proxy.
    expect(conf).not.toContain('set_real_ip_from 127.0.0.1;');
    expect(conf).toContain('proxy_set_header X-Forwarded-Port $ingresskit_forwarded_port;');
    expect(conf).toMatch(/map \$proxy_protocol_server_port \$ingresskit_scheme \{\n\s+"443" https;/);
  });

  it('appends the PROXY line source with compute-full-forwarded-for', () => {
    const conf = renderNginxConf(
      build({
        proxyProtocol: true,
        realIp: {
          header: 'X-Forwarded-For',
          trustedNetworks: ['0.0.0.0/0'],
          forwardedHeaders: true,
          fullForwardedFor: true,
        },
      }),
    );
    expect(conf).toContain('default "$http_x_forwarded_for, $proxy_protocol_addr";');
  });

  it('leaves the listeners alone without it', () => {
    const conf = renderNginxConf(build({}));
    expect(conf).not.toContain('proxy_protocol');
    expect(build({ proxyProtocol: false }).settings).not.toHaveProperty('proxyProtocol');
  });
});

describe('sslEcdhCurve and sslDhParamPem', () => {
  it('renders the curves and names the DH parameters file by its content', () => {
    const configuration = build({ sslEcdhCurve: 'X25519:prime256v1', sslDhParamPem: dhParams });
    const conf = renderNginxConf(configuration);
    expect(conf).toContain('ssl_ecdh_curve "X25519:prime256v1";');
    const [file] = listSettingsFiles(configuration.settings);
    expect(file!.path).toMatch(/^certs\/dhparam-[0-9a-f]{64}\.pem$/);
    expect(file!.content).toBe(dhParams);
    expect(conf).toContain(`ssl_dhparam "${file!.path}";`);
  });

  it('renders neither at their defaults', () => {
    const configuration = build({ sslEcdhCurve: 'auto' });
    expect(renderNginxConf(configuration)).not.toMatch(/ssl_ecdh_curve|ssl_dhparam/);
    expect(listSettingsFiles(configuration.settings)).toEqual([]);
  });

  it.each([
    { sslEcdhCurve: 'prime256v1; include /etc/passwd' },
    { sslEcdhCurve: 'X25519:' },
    { sslDhParamPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' },
    { sslDhParamPem: `${dhParams}ssl_dhparam /etc/shadow;` },
  ])('refuses %j', (extra) => {
    expect(() => build(extra)).toThrow(InvalidRenderOptionsError);
  });
});

describe('upstreamKeepalive.timeSeconds', () => {
  it('renders keepalive_time only when given', () => {
    expect(renderNginxConf(build({ upstreamKeepalive: { timeSeconds: 1800 } }))).toContain(
      'keepalive_time 1800s;',
    );
    expect(renderNginxConf(build({}))).not.toContain('keepalive_time ');
    expect(() => build({ upstreamKeepalive: { timeSeconds: 0 } })).toThrow(InvalidRenderOptionsError);
  });
});
