import { describe, expect, it } from 'vitest';
import { listenersOf, nginxRenderOptions, renderOptionsOfConfigMap } from './data-plane-render-options.js';

describe('listenersOf', () => {
  it('lists plain HTTP and HTTPS on the configured ports', () => {
    expect(listenersOf({ httpPort: 8080, httpsPort: 8443 })).toEqual([
      { name: 'http', port: 8080, protocol: 'HTTP' },
      { name: 'https', port: 8443, protocol: 'HTTPS' },
    ]);
  });
});

describe('nginxRenderOptions', () => {
  it('puts the control socket, certificate, Lua files and pid in the prefix when given only the prefix', () => {
    expect(nginxRenderOptions('/p', {})).toEqual({
      controlSocketPath: '/p/control/ingresskit.sock',
      defaultCertificatePath: '/p/certs/default.pem',
      workerProcesses: 'auto',
      luaDir: '/p/lua',
      pidPath: '/p/nginx.pid',
      errorLogPath: 'stderr',
      accessLogPath: false,
    });
  });

  it('writes the access log into the prefix and keeps the listen addresses when asked', () => {
    const options = nginxRenderOptions('/p', {
      accessLog: true,
      listenAddresses: ['10.0.0.1'],
      workerProcesses: 2,
    });
    expect(options).toMatchObject({
      accessLogPath: '/p/access.log',
      listenAddresses: ['10.0.0.1'],
      workerProcesses: 2,
    });
  });
});

describe('renderOptionsOfConfigMap', () => {
  it('turns the access log switch into a path in the prefix when it is set', () => {
    expect(renderOptionsOfConfigMap({ accessLog: true }, '/p')).toEqual({ accessLogPath: '/p/access.log' });
    expect(renderOptionsOfConfigMap({ accessLog: false }, '/p')).toEqual({ accessLogPath: false });
  });

  it('writes the access log where the ConfigMap says, shaped as it says, only while it is on', () => {
    const accessLogSettings = {
      path: '/var/log/ik.log',
      format: [{ variable: 'status' }],
      buffer: '16k',
      streamFormat: [{ variable: 'protocol' }],
    };
    expect(renderOptionsOfConfigMap({ accessLog: true, accessLogSettings }, '/p')).toEqual({
      accessLogPath: '/var/log/ik.log',
      accessLog: { format: [{ variable: 'status' }], buffer: '16k' },
      // Without stream-access-log-path nor access-log-path (http-access-log-path is the HTTP log's).
      streamAccessLog: { path: '/p/access.log', format: [{ variable: 'protocol' }] },
    });
    expect(
      renderOptionsOfConfigMap(
        { accessLog: true, accessLogSettings: { streamPath: '/var/log/tcp.log' } },
        '/p',
      ),
    ).toEqual({ accessLogPath: '/p/access.log', streamAccessLog: { path: '/var/log/tcp.log' } });
    expect(renderOptionsOfConfigMap({ accessLog: false, accessLogSettings }, '/p')).toEqual({
      accessLogPath: false,
      accessLog: { format: [{ variable: 'status' }], buffer: '16k' },
    });
    expect(renderOptionsOfConfigMap({ accessLogSettings: { path: '/var/log/ik.log' } }, '/p')).toEqual({});
  });

  it('passes the proxy-stream-* keys on as the stream services proxying', () => {
    const streamProxy = { timeoutMs: 1500, nextUpstream: false, nextUpstreamTries: 1, responses: 2 };
    expect(renderOptionsOfConfigMap({ streamProxy }, '/p')).toEqual({ streamProxy });
  });

  it("turns the realip module on with use-forwarded-headers or enable-real-ip, with ingress-nginx's defaults", () => {
    expect(
      renderOptionsOfConfigMap({ forwardedForHeader: 'X-Client-IP', proxyRealIpCidr: ['10.0.0.0/8'] }, '/p'),
    ).toEqual({});
    expect(renderOptionsOfConfigMap({ useForwardedHeaders: true }, '/p')).toEqual({
      realIp: {
        header: 'X-Forwarded-For',
        trustedNetworks: ['0.0.0.0/0'],
        forwardedHeaders: true,
        fullForwardedFor: false,
      },
    });
    expect(
      renderOptionsOfConfigMap(
        {
          enableRealIp: true,
          computeFullForwardedFor: true,
          forwardedForHeader: 'X-Client-IP',
          proxyRealIpCidr: ['10.0.0.0/8'],
        },
        '/p',
      ),
    ).toEqual({
      realIp: {
        header: 'X-Client-IP',
        trustedNetworks: ['10.0.0.0/8'],
        forwardedHeaders: false,
        fullForwardedFor: false,
      },
    });
  });

  it('turns upstream keepalive off when the ConfigMap asks for no connections', () => {
    expect(renderOptionsOfConfigMap({ upstreamKeepalive: { connections: 0 } }, '/p')).toEqual({
      upstreamKeepalive: false,
    });
    expect(
      renderOptionsOfConfigMap({ upstreamKeepalive: { connections: 8 }, workerConnections: 512 }, '/p'),
    ).toEqual({
      upstreamKeepalive: { connections: 8 },
      workerConnections: 512,
    });
  });

  it('takes the PROXY protocol on every listener with use-proxy-protocol, the client address from it', () => {
    expect(
      renderOptionsOfConfigMap(
        { useProxyProtocol: true, proxyProtocolHeaderTimeoutMs: 2000, proxyRealIpCidr: ['10.0.0.0/8'] },
        '/p',
      ),
    ).toEqual({
      proxyProtocol: true,
      realIp: {
        header: 'X-Forwarded-For',
        trustedNetworks: ['10.0.0.0/8'],
        forwardedHeaders: false,
        fullForwardedFor: false,
      },
    });
    expect(renderOptionsOfConfigMap({ useProxyProtocol: false }, '/p')).toEqual({});
  });

  it('adds upstream-keepalive-time to the upstream keepalive, unless keepalive is off', () => {
    expect(renderOptionsOfConfigMap({ upstreamKeepaliveTimeSeconds: 600 }, '/p')).toEqual({
      upstreamKeepalive: { timeSeconds: 600 },
    });
    expect(
      renderOptionsOfConfigMap(
        { upstreamKeepaliveTimeSeconds: 600, upstreamKeepalive: { connections: 0 } },
        '/p',
      ),
    ).toEqual({ upstreamKeepalive: false });
  });

  it('gathers the gzip keys, applied only with use-gzip, and the client keep-alive keys', () => {
    expect(
      renderOptionsOfConfigMap(
        { gzip: true, gzipLevel: 5, gzipTypes: ['text/css'], serverTokens: true },
        '/p',
      ),
    ).toEqual({ gzip: { level: 5, types: ['text/css'] }, serverTokens: true });
    expect(renderOptionsOfConfigMap({ gzip: false, gzipLevel: 5 }, '/p')).toEqual({});
    expect(
      renderOptionsOfConfigMap(
        { keepaliveRequests: 10, sslProtocols: ['TLSv1.3'], sslCiphers: 'HIGH' },
        '/p',
      ),
    ).toEqual({ clientKeepalive: { requests: 10 }, sslProtocols: ['TLSv1.3'], sslCiphers: 'HIGH' });
  });

  it('leaves out what the ConfigMap does not set', () => {
    expect(renderOptionsOfConfigMap({}, '/p')).toEqual({});
  });
});
