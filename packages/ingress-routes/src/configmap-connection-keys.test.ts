import { describe, expect, it } from 'vitest';
import { checkDhParamPem, checkEcdhCurve } from './configmap-connection-keys.js';
import { parseControllerConfigMap } from './ingress-nginx-configmap.js';

/** RFC 7919's ffdhe2048 group, as `openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048` writes it. */
const FFDHE2048 = `-----BEGIN DH PARAMETERS-----
MIIBCAKCAQEA//////////+t+FRYortKmq/cViAnPTzx2LnFg84tNpWp4TZBFGQz
+8yTnc4kmz75fS/jY2MMddj2gbICrsRhetPfHtXV/WVhJDP1H18GbtCFY2VVPe0a
87VXE15/V8k1mE8McODmi3fipona8+/och3xWKE2rec1MKzKT0g6eXq8CrGCsyT7
YdEIqUuyyOP7uWrat2DX9GgdT0Kj3jlN9K5W7edjcrsZCwenyO4KbXCeAvzhzffi
7MA0BM0oNC9hkXL+nOmFg/+OTxIy7vKBg8P+OxtMb61zO7X8vC7CIAXFjvGDfRaD
ssbzSibBsu/6iGtCOGEoXJf//////////wIBAg==
-----END DH PARAMETERS-----
`;

const base64 = (text: string) => Buffer.from(text).toString('base64');

function secrets(data: Record<string, Record<string, string>>) {
  return (namespace: string, name: string) => data[`${namespace}/${name}`];
}

describe('parseControllerConfigMap (connection keys)', () => {
  it('reads use-proxy-protocol, its header timeout, ssl-ecdh-curve and upstream-keepalive-time', () => {
    const { settings, problems } = parseControllerConfigMap({
      'use-proxy-protocol': 'true',
      'proxy-protocol-header-timeout': '1500ms',
      'ssl-ecdh-curve': 'X25519:prime256v1',
      'upstream-keepalive-time': '30m',
    });
    expect(problems).toEqual([]);
    expect(settings.nginx).toEqual({
      useProxyProtocol: true,
      proxyProtocolHeaderTimeoutMs: 1500,
      sslEcdhCurve: 'X25519:prime256v1',
      upstreamKeepaliveTimeSeconds: 1800,
    });
  });

  it('applies the defaults of ingress-nginx as no setting', () => {
    const { settings, problems } = parseControllerConfigMap({
      'use-proxy-protocol': 'false',
      'ssl-ecdh-curve': 'auto',
      'upstream-keepalive-time': '3600',
    });
    expect(problems).toEqual([]);
    expect(settings.nginx).toEqual({ useProxyProtocol: false, upstreamKeepaliveTimeSeconds: 3600 });
  });

  it('reads the DH parameters of the Secret ssl-dh-param names, and says which Secrets it read', () => {
    const {
      settings,
      problems,
      secrets: read,
    } = parseControllerConfigMap(
      { 'ssl-dh-param': 'ingress/dhparam' },
      {},
      undefined,
      secrets({ 'ingress/dhparam': { 'dhparam.pem': base64(FFDHE2048) } }),
    );
    expect(problems).toEqual([]);
    expect(settings.nginx.sslDhParamPem).toBe(FFDHE2048);
    expect(read).toEqual(['ingress/dhparam']);
  });

  it.each([
    ['ingress/missing', {}, 'names Secret ingress/missing, which is not found'],
    ['ingress/empty', { 'ingress/empty': {} }, 'which has no dhparam.pem'],
    [
      'ingress/key',
      {
        'ingress/key': {
          'dhparam.pem': base64('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'),
        },
      },
      'is not a DH PARAMETERS PEM block',
    ],
    // The Secret named before, now holding something else: its last good content stays.
    [
      'ingress/dhparam',
      { 'ingress/dhparam': { 'dhparam.pem': base64('nonsense') } },
      'is not a DH PARAMETERS PEM block',
    ],
    ['../etc/passwd', {}, 'must name a Secret as NAMESPACE/NAME'],
    ['ingress', {}, 'must name a Secret as NAMESPACE/NAME'],
  ])(
    'refuses ssl-dh-param %j and keeps the last valid value and its DH parameters',
    (value, data, message) => {
      const good = parseControllerConfigMap(
        { 'ssl-dh-param': 'ingress/dhparam' },
        {},
        undefined,
        secrets({ 'ingress/dhparam': { 'dhparam.pem': base64(FFDHE2048) } }),
      );
      const { settings, problems, secretData } = parseControllerConfigMap(
        { 'ssl-dh-param': value },
        good.values,
        undefined,
        secrets(data),
        good.secretData,
      );
      expect(problems).toEqual([
        expect.objectContaining({
          field: 'data["ssl-dh-param"]',
          severity: 'error',
          message: expect.stringContaining(message),
        }),
      ]);
      expect(problems[0]!.message).toContain('the last valid value "ingress/dhparam" stays');
      expect(settings.nginx.sslDhParamPem).toBe(FFDHE2048);
      expect(secretData).toEqual(good.secretData);
    },
  );

  it('takes the new content of the Secret it names when it is valid', () => {
    const first = parseControllerConfigMap(
      { 'ssl-dh-param': 'ingress/dhparam' },
      {},
      undefined,
      secrets({ 'ingress/dhparam': { 'dhparam.pem': base64(FFDHE2048) } }),
    );
    const changed = FFDHE2048.replace('\n', '\r\n');
    const second = parseControllerConfigMap(
      { 'ssl-dh-param': 'ingress/dhparam' },
      first.values,
      undefined,
      secrets({ 'ingress/dhparam': { 'dhparam.pem': base64(changed) } }),
      first.secretData,
    );
    expect(second.problems).toEqual([]);
    expect(second.settings.nginx.sslDhParamPem).toBe(changed);
  });

  it.each([
    ['use-proxy-protocol', 'yes'],
    ['proxy-protocol-header-timeout', '5'],
    ['proxy-protocol-header-timeout', '-5s'],
    ['proxy-protocol-header-timeout', '0s'],
    ['proxy-protocol-header-timeout', '25h'],
    ['ssl-ecdh-curve', 'no-such-curve'],
    ['ssl-ecdh-curve', 'prime256v1;include /etc/passwd'],
    ['ssl-ecdh-curve', 'X25519:'],
    ['ssl-ecdh-curve', 'prime256v1 secp384r1'],
    ['ssl-ecdh-curve', Array.from({ length: 33 }, () => 'X25519').join(':')],
    ['upstream-keepalive-time', '1d'],
    ['upstream-keepalive-time', '0'],
    ['upstream-keepalive-time', '1.5s'],
    ['upstream-keepalive-time', '25h'],
    ['upstream-keepalive-time', '1h;'],
  ])('refuses %s: %j, keeping the default', (name, value) => {
    const { settings, problems } = parseControllerConfigMap({ [name]: value });
    expect(settings.nginx).toEqual({});
    expect(problems).toEqual([
      expect.objectContaining({ field: `data["${name}"]`, severity: 'error', value }),
    ]);
  });

  it('warns that forwarded-for-proxy-protocol-header is not applied', () => {
    const { problems } = parseControllerConfigMap({ 'forwarded-for-proxy-protocol-header': 'X-Real' });
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('PROXY protocol') }),
    ]);
  });
});

describe('checkEcdhCurve', () => {
  it('names the curve OpenSSL does not know', () => {
    expect(checkEcdhCurve('prime256v1:secp384r1')).toBeUndefined();
    expect(checkEcdhCurve('prime256v1:nope')).toBe('names "nope", which is not a curve OpenSSL knows');
  });
});

describe('checkDhParamPem', () => {
  it('accepts 2048-bit parameters and refuses truncated or smaller ones', () => {
    expect(checkDhParamPem(FFDHE2048)).toBeUndefined();
    const truncated = FFDHE2048.replace(/\n[^\n]+\n-----END/, '\n-----END');
    expect(checkDhParamPem(truncated)).toMatch(/OpenSSL refuses|fewer than 2048/);
    expect(checkDhParamPem(`${FFDHE2048}${FFDHE2048}`)).toBe('is not a DH PARAMETERS PEM block');
  });
});
