/**
 * The addresses of the clouds' instance metadata and host services: whoever reaches them from a
 * node reads that node's identity and, on most clouds, the credentials of its role. Most live in
 * IPv4 link-local space (169.254.0.0/16, refused as a whole); these are the ones that do not, and
 * the well-known link-local ones, listed so the table says what it guards. Sources: each
 * provider's documentation of its metadata service (AWS EC2 and EKS Pod Identity, Google Compute
 * Engine, Azure's 168.63.129.16 page, Alibaba Cloud ECS, Oracle Cloud, Scaleway and Akamai
 * through cloud-init's datasources), checked in 2026.
 */
import { isInNetwork, parseIpNetwork, type IpAddress, type IpNetwork } from './ip-address.js';

/** One entry of {@link CLOUD_METADATA_NETWORKS}: a network and whose service it is. */
export interface MetadataNetwork {
  /** `address/prefix`, canonical. */
  readonly cidr: string;
  /** Whose service, for messages: "the AWS instance metadata service (IPv6)". */
  readonly service: string;
}

/** Known cloud metadata and host-service networks; refused as backends whatever the policy says. */
export const CLOUD_METADATA_NETWORKS: readonly MetadataNetwork[] = [
  // AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack, Hetzner, Huawei, Akamai, ...: link-local.
  { cidr: '169.254.169.254/32', service: 'the instance metadata service of most clouds' },
  // AWS ECS task metadata (.170.2) and EKS Pod Identity credentials (.170.23): link-local.
  { cidr: '169.254.170.0/24', service: 'the AWS container credentials services' },
  // AWS's IPv6 counterparts: IMDS ::254, EKS Pod Identity ::23, DNS ::253, time ::123. AWS gives
  // the whole prefix to such services; no VPC hands it out.
  {
    cidr: 'fd00:ec2::/32',
    service: 'the AWS instance services (IPv6: metadata, EKS Pod Identity, DNS, time)',
  },
  { cidr: 'fd20:ce::254/128', service: 'the Google Compute Engine metadata server (IPv6)' },
  // Not link-local: a public address Azure routes to the host (WireServer, its DNS, health probes).
  { cidr: '168.63.129.16/32', service: 'the Azure WireServer' },
  // In the shared address space 100.64.0.0/10, which clusters may use: the one address only.
  { cidr: '100.100.100.200/32', service: 'the Alibaba Cloud metadata service' },
  // Listed by security tables rather than the provider's pages reached; an unused ULA, so refused.
  { cidr: 'fd00:100::100:200/128', service: 'the Alibaba Cloud metadata service (IPv6)' },
  { cidr: '192.0.0.192/32', service: 'the Oracle Cloud metadata service (Classic, Cloud@Customer)' },
  { cidr: 'fd00:c1::a9fe:a9fe/128', service: 'the Oracle Cloud metadata service (IPv6)' },
  { cidr: 'fd00:42::42/128', service: 'the Scaleway metadata service (IPv6)' },
  { cidr: 'fd00:a9fe:a9fe::1/128', service: 'the Akamai (Linode) metadata service (IPv6)' },
  // Tencent Cloud (169.254.0.23), Scaleway (169.254.42.42), OpenStack over IPv6 (fe80::a9fe:a9fe)
  // and Kubernetes' NodeLocal DNSCache (169.254.20.10) are link-local, refused with their ranges.
];

const PARSED: readonly (readonly [IpNetwork, MetadataNetwork])[] = CLOUD_METADATA_NETWORKS.map(
  (entry) => [parseIpNetwork(entry.cidr), entry] as const,
);

/** The metadata network `address` is in, or undefined. */
export function findMetadataNetwork(address: IpAddress): MetadataNetwork | undefined {
  return PARSED.find(([network]) => isInNetwork(address, network))?.[1];
}
