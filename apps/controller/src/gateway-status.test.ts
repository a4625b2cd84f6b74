import { describe, expect, it } from 'vitest';
import { toGatewayAddresses } from './gateway-status.js';

describe('toGatewayAddresses', () => {
  it('maps IPs to IPAddress and hostnames to Hostname, in order', () => {
    expect(toGatewayAddresses([{ ip: '10.0.0.1' }, { hostname: 'lb.example.com' }])).toEqual([
      { type: 'IPAddress', value: '10.0.0.1' },
      { type: 'Hostname', value: 'lb.example.com' },
    ]);
  });
});
