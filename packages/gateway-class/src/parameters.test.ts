import { describe, expect, it } from 'vitest';
import {
  PARAMETERS_GROUP,
  PARAMETERS_KIND,
  parseParameters,
  resolveParametersRef,
  type ParametersLookup,
} from './parameters.js';
import type { ParametersReference } from './types.js';

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'gw-params', namespace: 'infra' },
  data: {
    logLevel: 'warn',
    workerConnections: '4096',
    proxyReadTimeout: '90s',
    clientMaxBodySize: '8m',
    hsts: 'true',
  },
};
const ownParameters = {
  apiVersion: 'ingresskit.dev/v1alpha1',
  kind: PARAMETERS_KIND,
  metadata: { name: 'internet' },
  spec: { logLevel: 'info', workerConnections: 1024, hsts: false },
};

function lookupFrom(objects: Record<string, unknown>): ParametersLookup {
  return (ref) => objects[`${ref.kind}/${ref.namespace ?? ''}/${ref.name}`];
}

const lookup = lookupFrom({
  'ConfigMap/infra/gw-params': configMap,
  [`${PARAMETERS_KIND}//internet`]: ownParameters,
});

const configMapRef: ParametersReference = {
  group: '',
  kind: 'ConfigMap',
  name: 'gw-params',
  namespace: 'infra',
};
const ownRef: ParametersReference = { group: PARAMETERS_GROUP, kind: PARAMETERS_KIND, name: 'internet' };

describe('resolveParametersRef', () => {
  it('gives empty parameters when there is no parametersRef', () => {
    expect(resolveParametersRef(undefined, lookup)).toEqual({
      valid: true,
      parameters: {},
      referent: undefined,
    });
  });

  it('parses a valid ConfigMap into typed parameters', () => {
    expect(resolveParametersRef(configMapRef, lookup)).toEqual({
      valid: true,
      referent: 'ConfigMap "infra/gw-params"',
      parameters: {
        logLevel: 'warn',
        workerConnections: 4096,
        proxyReadTimeout: '90s',
        clientMaxBodySize: '8m',
        hsts: true,
      },
    });
  });

  it('parses a valid IngressKitParameters object with typed values', () => {
    expect(resolveParametersRef(ownRef, lookup)).toEqual({
      valid: true,
      referent: 'IngressKitParameters "internet"',
      parameters: { logLevel: 'info', workerConnections: 1024, hsts: false },
    });
  });

  it('accepts an IngressKitParameters object without spec', () => {
    const bare = lookupFrom({ [`${PARAMETERS_KIND}//bare`]: { metadata: { name: 'bare' } } });
    expect(resolveParametersRef({ ...ownRef, name: 'bare' }, bare)).toMatchObject({
      valid: true,
      parameters: {},
    });
  });

  it('rejects an unsupported group or kind and names both', () => {
    const result = resolveParametersRef(
      { group: 'example.net', kind: 'Config', name: 'x', namespace: 'a' },
      lookup,
    );
    expect(result).toEqual({
      valid: false,
      message:
        'spec.parametersRef: group "example.net" kind "Config" is not supported; ' +
        'use a ConfigMap (group "") or IngressKitParameters (group "ingresskit.dev")',
    });
    expect(
      resolveParametersRef({ group: '', kind: 'Secret', name: 'x', namespace: 'a' }, lookup),
    ).toMatchObject({
      valid: false,
      message: expect.stringContaining('group "" kind "Secret" is not supported'),
    });
    expect(resolveParametersRef({ ...ownRef, kind: 'ConfigMap', namespace: 'a' }, lookup)).toMatchObject({
      valid: false,
      message: expect.stringContaining('group "ingresskit.dev" kind "ConfigMap" is not supported'),
    });
  });

  it('requires a namespace for a ConfigMap', () => {
    const { namespace: _, ...withoutNamespace } = configMapRef;
    expect(resolveParametersRef(withoutNamespace, lookup)).toEqual({
      valid: false,
      message:
        'spec.parametersRef.namespace is required: ConfigMap is namespaced (referent ConfigMap "gw-params")',
    });
    expect(resolveParametersRef({ ...configMapRef, namespace: '' }, lookup)).toMatchObject({ valid: false });
  });

  it('forbids a namespace for the cluster-scoped IngressKitParameters', () => {
    expect(resolveParametersRef({ ...ownRef, namespace: 'default' }, lookup)).toEqual({
      valid: false,
      message:
        'spec.parametersRef.namespace must not be set: IngressKitParameters is cluster-scoped ' +
        '(referent IngressKitParameters "internet", namespace "default" given)',
    });
  });

  it('reports a referent that does not exist', () => {
    expect(resolveParametersRef({ ...configMapRef, name: 'missing' }, lookup)).toEqual({
      valid: false,
      message: 'spec.parametersRef: ConfigMap "infra/missing" not found',
    });
    expect(resolveParametersRef({ ...ownRef, name: 'missing' }, lookup)).toEqual({
      valid: false,
      message: 'spec.parametersRef: IngressKitParameters "missing" not found',
    });
  });

  it('passes the normalized reference to the lookup', () => {
    const seen: ParametersReference[] = [];
    resolveParametersRef(ownRef, (ref) => {
      seen.push(ref);
      return undefined;
    });
    expect(seen).toEqual([{ group: PARAMETERS_GROUP, kind: PARAMETERS_KIND, name: 'internet' }]);
  });

  it('names every invalid field of a ConfigMap and the referent', () => {
    const bad = lookupFrom({
      'ConfigMap/infra/bad': {
        metadata: { name: 'bad', namespace: 'infra' },
        data: { workerConnections: 'lots', logLevel: 'loud', colour: 'blue' },
        binaryData: { blob: 'AAAA' },
      },
    });
    const result = resolveParametersRef({ ...configMapRef, name: 'bad' }, bad);
    expect(result).toEqual({
      valid: false,
      message:
        'spec.parametersRef: ConfigMap "infra/bad" is invalid: binaryData: not supported (keys: blob); ' +
        'data.colour: unknown key (accepted keys: clientMaxBodySize, hsts, logLevel, proxyReadTimeout, workerConnections); ' +
        'data.logLevel: "loud" is not one of debug, info, notice, warn, error, crit; ' +
        'data.workerConnections: "lots" is not an integer from 1 to 65535',
    });
  });

  it('rejects an IngressKitParameters spec that is not an object', () => {
    const broken = lookupFrom({ [`${PARAMETERS_KIND}//internet`]: { spec: 'oops' } });
    expect(resolveParametersRef(ownRef, broken)).toEqual({
      valid: false,
      message: 'spec.parametersRef: IngressKitParameters "internet" is invalid: spec: must be an object',
    });
  });
});

describe('parseParameters', () => {
  it.each([
    ['workerConnections', '0'],
    ['workerConnections', '65536'],
    ['workerConnections', 1.5],
    ['workerConnections', '012'],
    ['proxyReadTimeout', '60'],
    ['proxyReadTimeout', '0s'],
    ['proxyReadTimeout', '1d'],
    ['clientMaxBodySize', '8 m'],
    ['clientMaxBodySize', '-1'],
    ['hsts', 'yes'],
    ['logLevel', 'WARN'],
  ])('rejects %s=%j', (key, value) => {
    const { parameters, problems } = parseParameters({ [key]: value }, 'data');
    expect(parameters).toEqual({});
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^data\\.${key}: `))]);
  });

  it.each([
    ['workerConnections', '1', 1],
    ['workerConnections', 65535, 65535],
    ['proxyReadTimeout', '500ms', '500ms'],
    ['proxyReadTimeout', '2h', '2h'],
    ['clientMaxBodySize', '0', '0'],
    ['clientMaxBodySize', '1G', '1G'],
    ['hsts', 'false', false],
    ['hsts', true, true],
    ['logLevel', 'crit', 'crit'],
  ])('accepts %s=%j', (key, value, parsed) => {
    expect(parseParameters({ [key]: value }, 'spec')).toEqual({
      parameters: { [key]: parsed },
      problems: [],
    });
  });

  it('does not treat inherited object properties as accepted keys', () => {
    expect(parseParameters({ toString: 'x' }, 'data').problems).toEqual([
      expect.stringContaining('data.toString: unknown key'),
    ]);
  });
});
