import { describe, expect, it } from 'vitest';
import type { BackendTlsRelay } from '@ingresskit/nginx-template';
import { relayConnectOptionsOf } from './tls-relay-options.js';

function relay(overrides: Partial<BackendTlsRelay> = {}): BackendTlsRelay {
  return {
    id: '0123456789abcdef0123',
    verify: true,
    depth: 2,
    caCertificatesPem: 'CA PEM',
    protocols: ['TLSv1.2', 'TLSv1.3'],
    ciphers: 'HIGH:!aNULL',
    serverName: 'backend.internal',
    sendServerName: true,
    ...overrides,
  };
}

describe('relayConnectOptionsOf', () => {
  it('verifies the server name against the CA within the depth, and sends it as SNI', () => {
    expect(relayConnectOptionsOf(relay())).toEqual({
      options: {
        context: { ca: 'CA PEM', ciphers: 'HIGH:!aNULL', minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' },
        servername: 'backend.internal',
        verify: { name: 'backend.internal', depth: 2 },
      },
    });
  });

  it('verifies a name it does not send without proxy-ssl-server-name', () => {
    const made = relayConnectOptionsOf(relay({ sendServerName: false }));
    expect(made).toMatchObject({ options: { verify: { name: 'backend.internal', depth: 2 } } });
    expect('options' in made && made.options.servername).toBeUndefined();
  });

  it('never sends an address as SNI', () => {
    const made = relayConnectOptionsOf(relay({ serverName: '10.0.0.1' }));
    expect('options' in made && made.options.servername).toBeUndefined();
  });

  it('presents the client certificate, offers h2 to gRPC, and takes the route connect timeout', () => {
    const made = relayConnectOptionsOf(
      relay({
        verify: false,
        caCertificatesPem: undefined,
        clientCertificate: { certificatePem: 'CERT', privateKeyPem: 'KEY' },
        alpn: 'h2',
        connectTimeoutMs: 2500,
      }),
    );
    expect(made).toEqual({
      options: {
        context: {
          cert: 'CERT',
          key: 'KEY',
          ciphers: 'HIGH:!aNULL',
          minVersion: 'TLSv1.2',
          maxVersion: 'TLSv1.3',
        },
        servername: 'backend.internal',
        ALPNProtocols: ['h2'],
        connectTimeoutMs: 2500,
      },
    });
  });

  it('keeps one protocol as both bounds', () => {
    expect(relayConnectOptionsOf(relay({ protocols: ['TLSv1.3'] }))).toMatchObject({
      options: { context: { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' } },
    });
  });

  it('leaves TLSv1.3 suite names out of the TLSv1.2 cipher list, as nginx does', () => {
    expect(relayConnectOptionsOf(relay({ ciphers: 'TLS_AES_128_GCM_SHA256:ECDHE+AESGCM' }))).toMatchObject({
      options: { context: { ciphers: 'ECDHE+AESGCM' } },
    });
    expect(relayConnectOptionsOf(relay({ ciphers: 'TLS_AES_128_GCM_SHA256' }))).toEqual({
      problem: expect.stringContaining('names no TLSv1.2 cipher'),
    });
  });

  it('refuses to verify without a name rather than verify nothing', () => {
    expect(relayConnectOptionsOf(relay({ serverName: undefined }))).toEqual({
      problem: expect.stringContaining('verification needs'),
    });
  });
});
