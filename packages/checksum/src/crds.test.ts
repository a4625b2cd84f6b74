import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ingressCheckSumCrd,
  secretCheckSumCrd,
  type CrdSchemaProps,
  type CustomResourceDefinition,
} from './index.js';

const crdDir = join(import.meta.dirname, '..', 'crds');

// A structural schema (apiextensions.k8s.io/v1) gives every node a type and says nothing but the
// type about metadata.
function findUntypedNodes(schema: CrdSchemaProps, path: string): string[] {
  const own = schema.type ? [] : [path];
  const children = Object.entries(schema.properties ?? {}).flatMap(([key, child]) =>
    findUntypedNodes(child, `${path}.${key}`),
  );
  const items = schema.items ? findUntypedNodes(schema.items, `${path}[]`) : [];
  return [...own, ...children, ...items];
}

describe.each([
  ['ingressCheckSumCrd', ingressCheckSumCrd, 'IngressCheckSum', 'ingresschecksums'],
  ['secretCheckSumCrd', secretCheckSumCrd, 'SecretCheckSum', 'secretchecksums'],
] as const)('%s', (_name, crd: CustomResourceDefinition, kind, plural) => {
  it('matches the YAML file shipped in crds/', () => {
    const file = join(crdDir, `${plural}.tengine.taobao.org.yaml`);
    expect(parse(readFileSync(file, 'utf8'))).toEqual(crd);
  });

  it('defines a namespaced v1 resource in tengine.taobao.org that is served and stored', () => {
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.metadata?.name).toBe(`${plural}.tengine.taobao.org`);
    expect(crd.spec).toMatchObject({
      group: 'tengine.taobao.org',
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
    });
    expect(crd.spec.versions).toHaveLength(1);
    expect(crd.spec.versions[0]).toMatchObject({ name: 'v1', served: true, storage: true });
  });

  it('has a structural schema with spec.checksum, spec.ids and a required spec.timestamp', () => {
    const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;
    expect(findUntypedNodes(schema, '')).toEqual([]);
    expect(schema.properties?.metadata).toEqual({ type: 'object' });
    const spec = schema.properties?.spec;
    expect(spec?.required).toEqual(['timestamp']);
    expect(spec?.properties?.checksum?.type).toBe('string');
    expect(spec?.properties?.ids).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(spec?.properties?.ids).not.toHaveProperty('x-kubernetes-list-type');
    expect(spec?.properties?.timestamp).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('is frozen so that no caller can change it for the others', () => {
    expect(Object.isFrozen(crd)).toBe(true);
    expect(Object.isFrozen(crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec)).toBe(true);
  });
});

describe('CustomResourceDefinition', () => {
  it('is accepted where client-node wants a V1CustomResourceDefinition', () => {
    // A compile-time check (pnpm typecheck): the package's own CRD type must stay a structural
    // subset of client-node's, so the objects go to its apiextensions client unchanged.
    const forClient: V1CustomResourceDefinition[] = [ingressCheckSumCrd, secretCheckSumCrd];
    expect(forClient.map((crd) => crd.kind)).toEqual([
      'CustomResourceDefinition',
      'CustomResourceDefinition',
    ]);
  });
});
