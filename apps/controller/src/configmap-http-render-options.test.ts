import { describe, expect, it } from 'vitest';
import { renderOptionsOfHttpSettings } from './configmap-http-render-options.js';
import { renderOptionsOfConfigMap } from './data-plane-render-options.js';

describe('renderOptionsOfHttpSettings', () => {
  it('passes the nginx settings on as http and the error log path as errorLogPath', () => {
    expect(
      renderOptionsOfHttpSettings(
        { reusePort: true, http2: false, errorLogPath: '/var/log/ik/error.log' },
        [],
      ),
    ).toEqual({ http: { reusePort: true, http2: false }, errorLogPath: '/var/log/ik/error.log' });
    expect(renderOptionsOfHttpSettings({}, undefined)).toEqual({});
  });

  it('listens on bind-address instead, without its IPv6 addresses when disable-ipv6 is "true"', () => {
    const bindAddresses = ['10.0.0.5', 'fd00::5'];
    expect(renderOptionsOfHttpSettings({ bindAddresses }, ['127.0.0.1'])).toEqual({
      listenAddresses: bindAddresses,
    });
    expect(renderOptionsOfHttpSettings({ bindAddresses, disableIpv6: true }, [])).toEqual({
      listenAddresses: ['10.0.0.5'],
    });
    expect(renderOptionsOfHttpSettings({ bindAddresses: ['fd00::5'], disableIpv6: true }, [])).toEqual({});
  });

  it('adds every IPv6 address with disable-ipv6 "false" only where nginx listens on every address', () => {
    expect(renderOptionsOfHttpSettings({ disableIpv6: false }, [])).toEqual({
      listenAddresses: ['0.0.0.0', '::'],
    });
    expect(renderOptionsOfHttpSettings({ disableIpv6: false }, ['127.0.0.1'])).toEqual({});
    expect(renderOptionsOfHttpSettings({ disableIpv6: true }, ['127.0.0.1', '::1'])).toEqual({
      listenAddresses: ['127.0.0.1'],
    });
  });

  it('is applied by renderOptionsOfConfigMap over the listen addresses it is given', () => {
    expect(
      renderOptionsOfConfigMap({ http: { disableIpv6: false, multiAccept: false } }, '/prefix', []),
    ).toEqual({ http: { multiAccept: false }, listenAddresses: ['0.0.0.0', '::'] });
  });
});
