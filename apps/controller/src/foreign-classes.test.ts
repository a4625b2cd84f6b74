import { describe, expect, it } from 'vitest';
import { normalizeClassResolutionConfig } from '@ingresskit/class-resolution';
import type { GatewayClass, IngressClass } from '@ingresskit/store';
import { createForeignClassCheck } from './foreign-classes.js';

function ingressClass(name: string, controller: string): IngressClass {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name, resourceVersion: '1' },
    spec: { controller },
  };
}

function gatewayClass(name: string, controllerName: string): GatewayClass {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: { name, resourceVersion: '1' },
    spec: { controllerName },
  };
}

describe('createForeignClassCheck', () => {
  const classConfig = normalizeClassResolutionConfig({});

  it("calls an IngressClass foreign when its controller is another's, unless ours by name in by-name mode", () => {
    const isForeign = createForeignClassCheck({ classConfig, gatewayControllerName: undefined });
    const ours = ingressClass('nginx', classConfig.controllerClass);
    const theirs = ingressClass('nginx', 'example.com/other');
    expect(isForeign({ kind: 'IngressClass', object: ours })).toBe(false);
    expect(isForeign({ kind: 'IngressClass', object: theirs })).toBe(true);
    const byName = createForeignClassCheck({
      classConfig: normalizeClassResolutionConfig({ ingressClassByName: true, ingressClass: 'nginx' }),
      gatewayControllerName: undefined,
    });
    expect(byName({ kind: 'IngressClass', object: theirs })).toBe(false);
  });

  it('calls every GatewayClass foreign without a gateway controller name, else those of other controllers', () => {
    const withoutGateways = createForeignClassCheck({ classConfig, gatewayControllerName: undefined });
    expect(withoutGateways({ kind: 'GatewayClass', object: gatewayClass('edge', 'example.com/ours') })).toBe(
      true,
    );
    const isForeign = createForeignClassCheck({ classConfig, gatewayControllerName: 'example.com/ours' });
    expect(isForeign({ kind: 'GatewayClass', object: gatewayClass('edge', 'example.com/ours') })).toBe(false);
    expect(isForeign({ kind: 'GatewayClass', object: gatewayClass('edge', 'example.com/theirs') })).toBe(
      true,
    );
  });
});
