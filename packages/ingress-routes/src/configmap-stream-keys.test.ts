import { describe, expect, it } from 'vitest';
import { parseStreamTime } from './configmap-stream-keys.js';
import { INGRESS_NGINX_CONFIGMAP_KEYS, parseControllerConfigMap } from './ingress-nginx-configmap.js';

const STREAM_KEYS = [
  'proxy-stream-timeout',
  'proxy-stream-next-upstream',
  'proxy-stream-next-upstream-timeout',
  'proxy-stream-next-upstream-tries',
  'proxy-stream-responses',
];

describe('parseStreamTime', () => {
  it.each([
    ['600s', 600_000],
    ['600', 600_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1s500ms', 1500],
    ['2d', 172_800_000],
    ['24d', 24 * 86_400_000],
  ])('reads %j as %d ms', (value, ms) => {
    expect(parseStreamTime(value, 0)).toBe(ms);
  });

  it.each([
    ['', /must be a time/],
    ['10 m', /must be a time/],
    ['30m1h', /must be a time/],
    ['1h30', /must be a time/],
    ['1w', /must be a time/],
    ['-1s', /must be a time/],
    ['1.5s', /must be a time/],
    ['600s; include /etc/passwd', /must be a time/],
    ['25d', /at most 24d/],
    ['9999999999', /must be a time/],
  ])('refuses %j', (value, message) => {
    expect(parseStreamTime(value, 0)).toMatch(message);
  });

  it('refuses less than the least time', () => {
    expect(parseStreamTime('0s', 1)).toBe('must be at least 1ms');
    expect(parseStreamTime('0', 0)).toBe(0);
  });
});

describe('the proxy-stream-* keys', () => {
  it('are reload keys of the catalogue', () => {
    for (const name of STREAM_KEYS)
      expect(INGRESS_NGINX_CONFIGMAP_KEYS.find((key) => key.name === name)?.applied).toBe('reload');
  });

  it('are read into streamProxy', () => {
    const { settings, problems } = parseControllerConfigMap({
      'proxy-stream-timeout': '1h30m',
      'proxy-stream-next-upstream': 'False',
      'proxy-stream-next-upstream-timeout': '0',
      'proxy-stream-next-upstream-tries': '5',
      'proxy-stream-responses': '0',
    });
    expect(problems).toEqual([]);
    expect(settings.nginx.streamProxy).toEqual({
      timeoutMs: 5_400_000,
      nextUpstream: false,
      nextUpstreamTimeoutMs: 0,
      nextUpstreamTries: 5,
      responses: 0,
    });
  });

  it('leave streamProxy out when none is set', () => {
    expect(parseControllerConfigMap({}).settings.nginx.streamProxy).toBeUndefined();
  });

  it.each([
    ['proxy-stream-timeout', '0', /must be at least 1ms/],
    ['proxy-stream-timeout', '600s;', /must be a time/],
    ['proxy-stream-timeout', '$remote_addr', /must be a time/],
    ['proxy-stream-next-upstream', 'on', /must be "true" or "false"/],
    ['proxy-stream-next-upstream-timeout', '30d', /at most 24d/],
    ['proxy-stream-next-upstream-tries', '-1', /whole number from 0 to 1000/],
    ['proxy-stream-next-upstream-tries', '1001', /whole number from 0 to 1000/],
    ['proxy-stream-responses', '1.5', /whole number from 0 to 1000000/],
    ['proxy-stream-responses', '1\n', /control characters/],
  ])('refuse %s %j, keeping the last valid value', (name, value, message) => {
    const kept = name === 'proxy-stream-next-upstream' ? 'true' : '2';
    const { settings, problems, values } = parseControllerConfigMap({ [name]: value }, { [name]: kept });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ field: `data["${name}"]`, severity: 'error' });
    expect(problems[0]!.message).toMatch(message);
    expect(problems[0]!.message).toContain(`the last valid value "${kept}" stays`);
    expect(values[name]).toBe(kept);
    expect(settings.nginx.streamProxy).toBeDefined();
  });
});
