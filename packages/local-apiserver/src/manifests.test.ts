import { describe, expect, it } from 'vitest';
import { ManifestError } from './errors.js';
import { orderManifests, parseManifests } from './manifests.js';

describe('parseManifests', () => {
  it('reads multi-document YAML and flattens List kinds', () => {
    const objects = parseManifests(`apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Secret, metadata: {name: b}}
---
`);
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual([
      'ConfigMap/a',
      'Secret/b',
    ]);
  });

  it('accepts objects and arrays, and rejects objects without apiVersion or kind', () => {
    expect(parseManifests({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } })).toHaveLength(1);
    expect(parseManifests([{ apiVersion: 'v1', kind: 'ConfigMap' }])[0]?.metadata).toEqual({});
    expect(() => parseManifests({ kind: 'ConfigMap' })).toThrow(ManifestError);
    expect(() => parseManifests('a: [unclosed')).toThrow(ManifestError);
  });
});

describe('orderManifests', () => {
  it('puts Namespaces, then CRDs, first and keeps the rest in order', () => {
    const ordered = orderManifests(
      parseManifests([
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '1' } },
        { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: '2' } },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: '3' } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: '4' } },
      ]),
    );
    expect(ordered.map((object) => object.metadata.name)).toEqual(['4', '2', '1', '3']);
  });
});
