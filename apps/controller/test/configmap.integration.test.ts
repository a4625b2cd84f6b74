/**
 * The controller ConfigMap (`--configmap`) end to end (local API server, the controller, nginx,
 * real HTTP): a key that sets an annotation default applies without a reload, a key nginx takes
 * from nginx.conf only applies with one, an invalid value keeps the last valid one and says so in
 * an Event on the ConfigMap, and a key we do not apply is reported there too.
 */
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
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

const CONFIGMAP = CONTROLLER_CONFIGMAP;
const configMap = controllerConfigMapManifest;

const started = useAnnotationsCase({
  config: { podName: 'configmap', configMap: `${CONFIGMAP.namespace}/${CONFIGMAP.name}` },
  readyHost: 'slow.test',
  objects: async ({ listen }) => {
    // `/slow` answers after 1.5 s, anything else at once.
    const slow = await listen((incoming, response) => {
      if (incoming.url === '/slow') setTimeout(() => response.end('slow'), 1_500);
      else response.end('fast');
    });
    return [
      configMap({ 'proxy-read-timeout': '1', 'worker-processes': '1' }),
      ...serviceManifests('slow', []),
      endpointSliceManifest('slow-1', 'slow', slow),
      annotatedIngress('slow.test', 'slow', {}),
      annotatedIngress('patient.test', 'slow', { [`${A}proxy-read-timeout`]: '5' }),
      tlsSecretManifest('secure-tls', 'secure.test'),
      {
        ...annotatedIngress('secure.test', 'slow', {}),
        spec: {
          ...(annotatedIngress('secure.test', 'slow', {}).spec as Record<string, unknown>),
          tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }],
        },
      },
    ];
  },
});

const statusOf = async (host: string) => (await started().send(host, { path: '/slow' })).status;

const configMapEvents = () => listConfigMapEvents(started(), CONFIGMAP);

describe('controller ConfigMap', () => {
  it('sets the default of an annotation without reloading nginx; the annotation still wins', async () => {
    const { controller, server } = started();
    expect(await statusOf('slow.test')).toBe(504);
    expect(await statusOf('patient.test')).toBe(200);
    const workers = await controller.dataPlane.workerPids();
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([configMap({ 'proxy-read-timeout': '5', 'worker-processes': '1' })]);
    await eventually(async () => expect(await statusOf('slow.test')).toBe(200));
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect(await controller.dataPlane.workerPids()).toEqual(workers);
  });

  it('reloads nginx for a setting only nginx.conf holds', async () => {
    const { controller, server } = started();
    const before = await controller.dataPlane.workerPids();
    expect(before).toHaveLength(1);
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([configMap({ 'proxy-read-timeout': '5', 'worker-processes': '2' })]);
    await eventually(() => expect(controller.dataPlane.reloadCount).toBe(reloads + 1));
    // The old worker drains beside the new ones for a moment.
    await eventually(async () => {
      const workers = await controller.dataPlane.workerPids();
      expect(workers.filter((pid) => !before.includes(pid))).toHaveLength(2);
      expect(workers).toHaveLength(2);
    });
    expect(await statusOf('slow.test')).toBe(200);
  });

  it('keeps the last valid value of an invalid one, and reports it and keys it does not apply', async () => {
    const { server } = started();
    await server.apply([configMap({ 'proxy-read-timeout': '5', 'worker-processes': '2' })]);
    await eventually(async () => expect(await statusOf('slow.test')).toBe(200));
    await server.apply([
      configMap({
        'proxy-read-timeout': 'soon',
        'worker-processes': '2',
        'block-cidrs': '10.0.0.0/8',
        'disable-ipv6-dns': 'true',
      }),
    ]);
    await eventually(async () => {
      expect(await configMapEvents()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^InvalidConfiguration: data\["proxy-read-timeout"\]: .*; the last valid value "5" stays$/,
          ),
          expect.stringMatching(/^InvalidConfiguration: data\["block-cidrs"\]: .* is not enforced$/),
          expect.stringMatching(/^UnsupportedKey: data\["disable-ipv6-dns"\]: .*not supported yet$/),
        ]),
      );
    });
    expect(await statusOf('slow.test')).toBe(200);
  });

  it("sends ingress-nginx's HSTS on HTTPS responses only, and follows the hsts keys without a reload", async () => {
    const { controller, server } = started();
    const hsts = async (tls: boolean) => {
      const port = tls ? controller.config.httpsPort : controller.config.httpPort;
      const response = await probe({ port, host: 'secure.test', path: '/', tls });
      return response.headers['strict-transport-security'];
    };
    await server.apply([configMap({ 'proxy-read-timeout': '5', 'worker-processes': '2' })]);
    await eventually(async () => expect(await hsts(true)).toBe('max-age=31536000; includeSubDomains'));
    // Plain HTTP of the same host redirects to HTTPS, without the header.
    expect(await hsts(false)).toBeUndefined();
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([
      configMap({
        'proxy-read-timeout': '5',
        'worker-processes': '2',
        'hsts-max-age': '600',
        'hsts-preload': 'true',
      }),
    ]);
    await eventually(async () => expect(await hsts(true)).toBe('max-age=600; includeSubDomains; preload'));
    await server.apply([configMap({ 'proxy-read-timeout': '5', 'worker-processes': '2', hsts: 'false' })]);
    await eventually(async () => expect(await hsts(true)).toBeUndefined());
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });
});
