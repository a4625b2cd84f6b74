import { describe, expect, it } from 'vitest';
import { listAffectedGatewayClasses } from './source.js';
import type { GatewayClass } from './types.js';

const controllerName = 'ingresskit.dev/gateway-controller';

const classes: GatewayClass[] = [
  {
    metadata: { name: 'internet' },
    spec: { controllerName, parametersRef: { group: '', kind: 'ConfigMap', name: 'gw', namespace: 'infra' } },
  },
  {
    metadata: { name: 'private' },
    spec: {
      controllerName,
      parametersRef: { group: 'ingresskit.dev', kind: 'IngressKitParameters', name: 'p' },
    },
  },
  {
    metadata: { name: 'foreign' },
    spec: {
      controllerName: 'example.net/gateway',
      parametersRef: { group: '', kind: 'ConfigMap', name: 'gw', namespace: 'infra' },
    },
  },
];

describe('listAffectedGatewayClasses', () => {
  it('names the class itself when a GatewayClass changes', () => {
    expect(
      listAffectedGatewayClasses(
        { kind: 'GatewayClass', newObject: { metadata: { name: 'x' } } },
        classes,
        controllerName,
      ),
    ).toEqual(['x']);
  });

  it('names the old and the new class when a Gateway moves between classes', () => {
    const change = {
      kind: 'Gateway',
      oldObject: { metadata: { name: 'g', namespace: 'a' }, spec: { gatewayClassName: 'private' } },
      newObject: { metadata: { name: 'g', namespace: 'a' }, spec: { gatewayClassName: 'internet' } },
    };
    expect(listAffectedGatewayClasses(change, classes, controllerName)).toEqual(['internet', 'private']);
  });

  it('names our classes that reference a changed ConfigMap, not foreign ones', () => {
    const change = { kind: 'ConfigMap', newObject: { metadata: { name: 'gw', namespace: 'infra' } } };
    expect(listAffectedGatewayClasses(change, classes, controllerName)).toEqual(['internet']);
    const elsewhere = { kind: 'ConfigMap', oldObject: { metadata: { name: 'gw', namespace: 'other' } } };
    expect(listAffectedGatewayClasses(elsewhere, classes, controllerName)).toEqual([]);
  });

  it('names our classes that reference a changed IngressKitParameters object', () => {
    const change = { kind: 'IngressKitParameters', oldObject: { metadata: { name: 'p' } } };
    expect(listAffectedGatewayClasses(change, classes, controllerName)).toEqual(['private']);
  });

  it('names all our classes when a Gateway API CRD changes, and none for other CRDs', () => {
    const gatewayCrd = {
      kind: 'CustomResourceDefinition',
      newObject: { spec: { group: 'gateway.networking.k8s.io' } },
    };
    expect(listAffectedGatewayClasses(gatewayCrd, classes, controllerName)).toEqual(['internet', 'private']);
    const otherCrd = { kind: 'CustomResourceDefinition', newObject: { spec: { group: 'example.net' } } };
    expect(listAffectedGatewayClasses(otherCrd, classes, controllerName)).toEqual([]);
  });

  it('ignores other kinds and malformed objects', () => {
    expect(listAffectedGatewayClasses({ kind: 'Secret', newObject: {} }, classes, controllerName)).toEqual(
      [],
    );
    expect(listAffectedGatewayClasses({ kind: 'Gateway', newObject: null }, classes, controllerName)).toEqual(
      [],
    );
  });
});
