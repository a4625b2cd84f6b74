import { describe, expect, it } from 'vitest';
import { canonicalAddress, parseIpAddress } from './ip-address.js';
import { CLOUD_METADATA_NETWORKS, findMetadataNetwork } from './metadata-addresses.js';

describe('CLOUD_METADATA_NETWORKS', () => {
  it('holds canonical networks only', () => {
    for (const { cidr } of CLOUD_METADATA_NETWORKS) {
      const [address, prefix] = cidr.split('/');
      expect(canonicalAddress(address!)).toBe(address);
      expect(Number(prefix)).toBeGreaterThan(0);
    }
  });

  it.each([
    '169.254.169.254',
    '169.254.170.2',
    '169.254.170.23',
    'fd00:ec2::254',
    'fd00:ec2::23',
    'fd20:ce::254',
    '168.63.129.16',
    '100.100.100.200',
    '192.0.0.192',
    'fd00:c1::a9fe:a9fe',
    'fd00:42::42',
    'fd00:a9fe:a9fe::1',
  ])('knows %s', (address) => {
    expect(findMetadataNetwork(parseIpAddress(address)!)).toBeDefined();
  });

  it.each(['100.100.100.201', '100.64.0.1', '168.63.129.17', 'fd00::2', 'fd20:ce::253'])(
    'leaves %s alone',
    (address) => {
      expect(findMetadataNetwork(parseIpAddress(address)!)).toBeUndefined();
    },
  );
});
