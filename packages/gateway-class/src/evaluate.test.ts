import { describe, expect, it } from 'vitest';
import { evaluateGatewayClass, formatConditionTime, type GatewayClassEvaluationContext } from './evaluate.js';
import { PARAMETERS_GROUP, PARAMETERS_KIND } from './parameters.js';
import type { CustomResourceDefinition, GatewayClass } from './types.js';
import { BUNDLE_VERSION_ANNOTATION } from './versions.js';

const controllerName = 'ingresskit.dev/gateway-controller';
const now = new Date('2026-03-04T05:06:07.890Z');

function crds(version: string | undefined): CustomResourceDefinition[] {
  return ['gatewayclasses', 'gateways', 'httproutes', 'referencegrants'].map(
    (plural): CustomResourceDefinition => ({
      metadata: {
        name: `${plural}.gateway.networking.k8s.io`,
        annotations: version === undefined ? {} : { [BUNDLE_VERSION_ANNOTATION]: version },
      },
      spec: { group: 'gateway.networking.k8s.io' },
    }),
  );
}

const configMap = { metadata: { name: 'gw', namespace: 'infra' }, data: { logLevel: 'warn' } };

function context(overrides: Partial<GatewayClassEvaluationContext> = {}): GatewayClassEvaluationContext {
  return {
    controllerName,
    now,
    customResourceDefinitions: crds('v1.6.1'),
    getParametersObject: (ref) =>
      ref.kind === 'ConfigMap' && ref.namespace === 'infra' && ref.name === 'gw' ? configMap : undefined,
    ...overrides,
  };
}

function gatewayClass(spec: Partial<NonNullable<GatewayClass['spec']>> = {}, generation = 3): GatewayClass {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: { name: 'internet', generation },
    spec: { controllerName, ...spec },
  };
}

describe('evaluateGatewayClass', () => {
  it('returns null when the class names another controller', () => {
    expect(
      evaluateGatewayClass(gatewayClass({ controllerName: 'example.net/gateway' }), context()),
    ).toBeNull();
  });

  it('accepts a class without parameters and reports the supported version', () => {
    const evaluation = evaluateGatewayClass(gatewayClass(), context());
    expect(evaluation).toEqual({
      accepted: true,
      parameters: {},
      supportedFeatures: undefined,
      conditions: [
        {
          type: 'Accepted',
          status: 'True',
          reason: 'Accepted',
          message: `accepted by ${controllerName}`,
          observedGeneration: 3,
          lastTransitionTime: '2026-03-04T05:06:07Z',
        },
        {
          type: 'SupportedVersion',
          status: 'True',
          reason: 'SupportedVersion',
          message: 'Gateway API CRDs are at bundle version v1.6.1 (supported: v1.6.x)',
          observedGeneration: 3,
          lastTransitionTime: '2026-03-04T05:06:07Z',
        },
      ],
    });
  });

  it('accepts a class whose ConfigMap parameters are valid and names the referent', () => {
    const evaluation = evaluateGatewayClass(
      gatewayClass({ parametersRef: { group: '', kind: 'ConfigMap', name: 'gw', namespace: 'infra' } }),
      context(),
    );
    expect(evaluation?.accepted).toBe(true);
    expect(evaluation?.parameters).toEqual({ logLevel: 'warn' });
    expect(evaluation?.conditions[0]?.message).toBe(
      `accepted by ${controllerName}; parameters from ConfigMap "infra/gw"`,
    );
  });

  it('gives Accepted=False InvalidParameters naming the field and referent when the referent is missing', () => {
    const evaluation = evaluateGatewayClass(
      gatewayClass({ parametersRef: { group: '', kind: 'ConfigMap', name: 'nope', namespace: 'infra' } }),
      context(),
    );
    expect(evaluation?.accepted).toBe(false);
    expect(evaluation?.parameters).toBeUndefined();
    expect(evaluation?.conditions[0]).toMatchObject({
      type: 'Accepted',
      status: 'False',
      reason: 'InvalidParameters',
      message: 'spec.parametersRef: ConfigMap "infra/nope" not found',
      observedGeneration: 3,
    });
    expect(evaluation?.conditions[1]).toMatchObject({ type: 'SupportedVersion', status: 'True' });
  });

  it.each([
    [{ group: 'example.net', kind: 'Config', name: 'x', namespace: 'infra' }, 'is not supported'],
    [{ group: '', kind: 'ConfigMap', name: 'gw' }, 'namespace is required'],
    [{ group: PARAMETERS_GROUP, kind: PARAMETERS_KIND, name: 'p', namespace: 'infra' }, 'must not be set'],
  ])('gives InvalidParameters for parametersRef %j', (parametersRef, fragment) => {
    const evaluation = evaluateGatewayClass(gatewayClass({ parametersRef }), context());
    expect(evaluation?.conditions[0]).toMatchObject({ status: 'False', reason: 'InvalidParameters' });
    expect(evaluation?.conditions[0]?.message).toContain(fragment);
  });

  it('gives InvalidParameters when the referent content is invalid', () => {
    const evaluation = evaluateGatewayClass(
      gatewayClass({ parametersRef: { group: '', kind: 'ConfigMap', name: 'gw', namespace: 'infra' } }),
      context({ getParametersObject: () => ({ data: { workerConnections: 'many' } }) }),
    );
    expect(evaluation?.conditions[0]).toMatchObject({
      reason: 'InvalidParameters',
      message:
        'spec.parametersRef: ConfigMap "infra/gw" is invalid: data.workerConnections: "many" is not an integer from 1 to 65535',
    });
  });

  it('accepts on a best-effort basis with SupportedVersion=False when the policy accepts', () => {
    const evaluation = evaluateGatewayClass(
      gatewayClass(),
      context({ customResourceDefinitions: crds('v1.7.0') }),
    );
    expect(evaluation?.accepted).toBe(true);
    expect(evaluation?.conditions[0]?.message).toContain('best effort: unsupported Gateway API CRDs');
    expect(evaluation?.conditions[1]).toMatchObject({
      type: 'SupportedVersion',
      status: 'False',
      reason: 'UnsupportedVersion',
      message: expect.stringContaining('detected: v1.7.0; supported: v1.6.x'),
    });
  });

  it('gives Accepted=False UnsupportedVersion when the policy refuses, and still names a parameters problem', () => {
    const evaluation = evaluateGatewayClass(
      gatewayClass({ parametersRef: { group: '', kind: 'ConfigMap', name: 'nope', namespace: 'infra' } }),
      context({
        customResourceDefinitions: crds(undefined),
        versionPolicy: { supportedVersions: ['v1.6.x'], onUnsupportedVersion: 'refuse' },
      }),
    );
    expect(evaluation?.accepted).toBe(false);
    expect(evaluation?.conditions[0]).toMatchObject({ status: 'False', reason: 'UnsupportedVersion' });
    expect(evaluation?.conditions[0]?.message).toContain(
      'no gateway.networking.k8s.io/bundle-version annotation',
    );
    expect(evaluation?.conditions[0]?.message).toContain(
      'also spec.parametersRef: ConfigMap "infra/nope" not found',
    );
    expect(evaluation?.conditions[1]).toMatchObject({ status: 'False', reason: 'UnsupportedVersion' });
  });

  it('accepts when the policy refuses but the version is supported', () => {
    const evaluation = evaluateGatewayClass(
      gatewayClass(),
      context({ versionPolicy: { supportedVersions: ['v1.6.1'], onUnsupportedVersion: 'refuse' } }),
    );
    expect(evaluation?.accepted).toBe(true);
  });

  it('sets observedGeneration to metadata.generation, or 0 without one', () => {
    expect(
      evaluateGatewayClass(gatewayClass({}, 7), context())?.conditions.map((c) => c.observedGeneration),
    ).toEqual([7, 7]);
    const noGeneration = { ...gatewayClass(), metadata: { name: 'x' } };
    expect(evaluateGatewayClass(noGeneration, context())?.conditions[0]?.observedGeneration).toBe(0);
  });

  it('publishes supported features sorted and de-duplicated when configured', () => {
    const evaluation = evaluateGatewayClass(
      gatewayClass(),
      context({ supportedFeatures: ['HTTPRoute', 'Gateway', 'HTTPRoute'] }),
    );
    expect(evaluation?.supportedFeatures).toEqual([{ name: 'Gateway' }, { name: 'HTTPRoute' }]);
  });

  it('does not mutate the class', () => {
    const input = gatewayClass({
      parametersRef: { group: '', kind: 'ConfigMap', name: 'gw', namespace: 'infra' },
    });
    const copy = structuredClone(input);
    evaluateGatewayClass(input, context());
    expect(input).toEqual(copy);
  });
});

describe('formatConditionTime', () => {
  it('drops fractional seconds as metav1.Time does', () => {
    expect(formatConditionTime(new Date('2026-01-01T00:00:00.999Z'))).toBe('2026-01-01T00:00:00Z');
  });
});
