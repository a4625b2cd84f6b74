import { describe, expect, it } from 'vitest';
import { isSamePorts, listOwnPorts } from './own-ports.js';

const config = {
  httpPort: 80,
  httpsPort: 443,
  healthzPort: 10254,
  admissionWebhook: undefined,
  sslPassthrough: false,
  sslPassthroughProxyPort: 442,
};

describe('listOwnPorts', () => {
  it("lists nginx's listeners and the health port, the webhook's and the passthrough listener's when they run", () => {
    expect(listOwnPorts(config)).toEqual(new Set([80, 443, 10254]));
    const all = listOwnPorts(
      {
        ...config,
        sslPassthrough: true,
        admissionWebhook: { host: undefined, port: 8443, certificateFile: 'c', keyFile: 'k' },
      },
      [5432, 53],
    );
    expect(all).toEqual(new Set([80, 443, 10254, 8443, 442, 5432, 53]));
  });

  it('leaves out port 0, which only asks for a free port', () => {
    const picked = { host: '127.0.0.1', port: 0, certificateFile: 'c', keyFile: 'k' };
    expect(listOwnPorts({ ...config, admissionWebhook: picked })).toEqual(new Set([80, 443, 10254]));
  });
});

describe('isSamePorts', () => {
  it('compares as sets', () => {
    expect(isSamePorts(new Set([1, 2]), new Set([2, 1]))).toBe(true);
    expect(isSamePorts(new Set([1]), new Set([1, 2]))).toBe(false);
    expect(isSamePorts(undefined, new Set())).toBe(false);
  });
});
