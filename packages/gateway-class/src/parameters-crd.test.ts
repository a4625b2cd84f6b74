import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PARAMETERS_API_VERSION } from './parameters.js';
import { ingressKitParametersCrd } from './parameters-crd.js';

describe('ingressKitParametersCrd', () => {
  it('is the same object as the shipped crds/ingresskitparameters.yaml', () => {
    const text = readFileSync(new URL('../crds/ingresskitparameters.yaml', import.meta.url), 'utf8');
    expect(parse(text)).toEqual(ingressKitParametersCrd);
  });

  it('serves the apiVersion the parameters module names, cluster-scoped', () => {
    const version = ingressKitParametersCrd.spec.versions[0];
    expect(`${ingressKitParametersCrd.spec.group}/${version.name}`).toBe(PARAMETERS_API_VERSION);
    expect(ingressKitParametersCrd.spec.scope).toBe('Cluster');
  });
});
