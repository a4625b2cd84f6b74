import { describe, expect, it } from 'vitest';
import { buildApiGroupList, buildApiResourceList, compareKubeVersions } from './discovery.js';
import { listBuiltinResources } from './resources.js';

describe('compareKubeVersions', () => {
  it('orders GA before beta before alpha, newer first', () => {
    expect(['v1alpha1', 'v1beta1', 'v2', 'v1', 'v1beta2', 'foo'].sort(compareKubeVersions)).toEqual([
      'v2',
      'v1',
      'v1beta2',
      'v1beta1',
      'v1alpha1',
      'foo',
    ]);
  });
});

describe('buildApiResourceList', () => {
  it('lists resources with their status subresources, or nothing for an unknown group version', () => {
    const resources = listBuiltinResources();
    const core = buildApiResourceList(resources, '', 'v1');
    expect(core).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1' });
    const names = (core?.resources as { name: string }[]).map((resource) => resource.name);
    expect(names).toContain('pods/status');
    expect(names).not.toContain('configmaps/status');
    expect(buildApiResourceList(resources, 'nope.io', 'v1')).toBeUndefined();
  });
});

describe('buildApiGroupList', () => {
  it('names every non-core group once with its preferred version', () => {
    const list = buildApiGroupList(listBuiltinResources());
    expect(list.groups).toContainEqual({
      name: 'coordination.k8s.io',
      versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
    });
  });
});
