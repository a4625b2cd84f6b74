import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { addressesFromService } from './index.js';

function service(spec: V1Service['spec'], status?: V1Service['status']): V1Service {
  return {
    metadata: { name: 'lb', namespace: 'ingress' },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

describe('addressesFromService', () => {
  it('publishes the external name as a hostname when the Service is ExternalName', () => {
    expect(addressesFromService(service({ type: 'ExternalName', externalName: 'lb.example.com' }))).toEqual([
      { hostname: 'lb.example.com' },
    ]);
  });

  it('publishes the cluster IP when the Service is ClusterIP or has no type', () => {
    expect(addressesFromService(service({ type: 'ClusterIP', clusterIP: '10.96.0.10' }))).toEqual([
      { ip: '10.96.0.10' },
    ]);
    expect(addressesFromService(service({ clusterIP: 'fd00::10' }))).toEqual([{ ip: 'fd00::10' }]);
  });

  it('publishes nothing when the ClusterIP Service is headless', () => {
    expect(addressesFromService(service({ type: 'ClusterIP', clusterIP: 'None' }))).toEqual([]);
  });

  it('publishes the external IPs when a NodePort Service has them', () => {
    expect(
      addressesFromService(
        service({ type: 'NodePort', clusterIP: '10.96.0.10', externalIPs: ['203.0.113.9', '203.0.113.2'] }),
      ),
    ).toEqual([{ ip: '203.0.113.2' }, { ip: '203.0.113.9' }]);
  });

  it('falls back to the cluster IP when a NodePort Service has no external IPs', () => {
    expect(addressesFromService(service({ type: 'NodePort', clusterIP: '10.96.0.10' }))).toEqual([
      { ip: '10.96.0.10' },
    ]);
  });

  it('publishes load-balancer IPs, hostnames and external IPs, sorted and de-duplicated, when the Service is LoadBalancer', () => {
    const lb = service(
      { type: 'LoadBalancer', clusterIP: '10.96.0.10', externalIPs: ['198.51.100.7', '198.51.100.1'] },
      {
        loadBalancer: {
          ingress: [
            { hostname: 'elb.example.com' },
            { ip: '198.51.100.7', hostname: 'ignored.example.com' },
            {},
          ],
        },
      },
    );
    expect(addressesFromService(lb)).toEqual([
      { ip: '198.51.100.1' },
      { ip: '198.51.100.7' },
      { hostname: 'elb.example.com' },
    ]);
  });

  it('publishes only external IPs when the load balancer is not provisioned yet', () => {
    expect(addressesFromService(service({ type: 'LoadBalancer', externalIPs: ['198.51.100.1'] }))).toEqual([
      { ip: '198.51.100.1' },
    ]);
    expect(addressesFromService(service({ type: 'LoadBalancer' }))).toEqual([]);
  });
});
