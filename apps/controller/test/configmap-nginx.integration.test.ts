/**
 * The controller ConfigMap's plain nginx settings end to end (local API server, the controller,
 * nginx, real HTTP and TLS): gzip, server-tokens and ssl-protocols reach nginx with a reload, and a
 * cipher list that matches no cipher is refused with an Event while the last valid one keeps serving.
 */
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { annotatedIngress, useAnnotationsCase } from './annotations.js';
import { probe } from '../src/http-probe.js';
import {
  endpointSliceManifest,
  eventually,
  controllerConfigMapManifest,
  CONTROLLER_CONFIGMAP,
  listConfigMapEvents,
  serviceManifests,
  tlsSecretManifest,
} from './harness.js';

const TEXT = 'compress me '.repeat(200);
// nginx's refusal of a client whose ciphers it does not serve (a handshake failure alert).
const NO_SHARED_CIPHER = /^error: .*(handshake failure|alert number 40)/;

const started = useAnnotationsCase({
  config: {
    podName: 'configmap-nginx',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
  },
  readyHost: 'text.test',
  objects: async ({ listen }) => {
    const text = await listen((_incoming, response) => {
      response.setHeader('content-type', 'text/plain');
      response.end(TEXT);
    });
    return [
      controllerConfigMapManifest({}),
      ...serviceManifests('text', []),
      endpointSliceManifest('text-1', 'text', text),
      annotatedIngress('text.test', 'text', {}),
      tlsSecretManifest('secure-tls', 'secure.test'),
      {
        ...annotatedIngress('secure.test', 'text', {}),
        spec: {
          ...(annotatedIngress('secure.test', 'text', {}).spec as Record<string, unknown>),
          tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }],
        },
      },
    ];
  },
});

async function get(host = 'text.test') {
  const { controller } = started();
  return probe({ port: controller.config.httpPort, host, headers: { 'accept-encoding': 'gzip' } });
}

/** The TLS version negotiated with a client that speaks at most `maxVersion` (and `ciphers`), or the error. */
function handshake(maxVersion: 'TLSv1.2' | 'TLSv1.3', ciphers?: string): Promise<string> {
  const { controller } = started();
  return new Promise((resolve) => {
    const socket = connect({
      host: '127.0.0.1',
      port: controller.config.httpsPort,
      servername: 'secure.test',
      rejectUnauthorized: false,
      maxVersion,
      ...(ciphers === undefined ? {} : { ciphers }),
    });
    socket.once('secureConnect', () => {
      resolve(socket.getProtocol() ?? 'none');
      socket.end();
    });
    socket.once('error', (error) => resolve(`error: ${error.message}`));
  });
}

const configMapEvents = () => listConfigMapEvents(started(), CONTROLLER_CONFIGMAP);

describe('controller ConfigMap nginx settings', () => {
  it('compresses text with gzip and shows the nginx version only when asked', async () => {
    const { controller, server } = started();
    const plain = await get();
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.server).toBe('nginx');
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([
      controllerConfigMapManifest({ 'use-gzip': 'true', 'gzip-min-length': '100', 'server-tokens': 'true' }),
    ]);
    await eventually(() => expect(controller.dataPlane.reloadCount).toBe(reloads + 1));
    await eventually(async () => {
      const response = await get();
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(response.headers.vary).toContain('Accept-Encoding');
      expect(response.headers.server).toMatch(/^nginx\/\d+\.\d+/);
    });
    await server.apply([
      controllerConfigMapManifest({
        'use-gzip': 'true',
        'gzip-min-length': '100000',
        'server-tokens': 'false',
      }),
    ]);
    await eventually(async () => {
      const response = await get();
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.headers.server).toBe('nginx');
    });
  });

  it('serves only the TLS versions ssl-protocols names', async () => {
    const { server } = started();
    expect(await handshake('TLSv1.2')).toBe('TLSv1.2');
    await server.apply([controllerConfigMapManifest({ 'ssl-protocols': 'TLSv1.3' })]);
    await eventually(async () => expect(await handshake('TLSv1.2')).toMatch(/^error: .*protocol version/));
    expect(await handshake('TLSv1.3')).toBe('TLSv1.3');
  });

  it('refuses a cipher list that matches no cipher with an Event, and keeps serving the last valid one', async () => {
    const { server } = started();
    const onlyAes256 = 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES256-GCM-SHA384';
    await server.apply([controllerConfigMapManifest({})]);
    await eventually(async () => expect(await handshake('TLSv1.2', onlyAes256)).toBe('TLSv1.2'));
    const ciphers = 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256';
    await server.apply([controllerConfigMapManifest({ 'ssl-ciphers': ciphers })]);
    await eventually(async () => {
      expect(await handshake('TLSv1.2', onlyAes256)).toMatch(NO_SHARED_CIPHER);
      expect(await handshake('TLSv1.2', ciphers)).toBe('TLSv1.2');
    });
    await server.apply([controllerConfigMapManifest({ 'ssl-ciphers': 'NO-SUCH-CIPHER:ALSO-NONE' })]);
    await eventually(async () =>
      expect(await configMapEvents()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(
              `^InvalidConfiguration: data\\["ssl-ciphers"\\]: .*matches no cipher.*; the last valid value "${ciphers}" stays$`,
            ),
          ),
        ]),
      ),
    );
    expect(await handshake('TLSv1.2', onlyAes256)).toMatch(NO_SHARED_CIPHER);
    expect(await handshake('TLSv1.2', ciphers)).toBe('TLSv1.2');
    expect((await get()).status).toBe(200);
  });
});
