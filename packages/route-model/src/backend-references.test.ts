import { describe, expect, it } from 'vitest';
import { BackendReferences, backendIdsOfRoute, mergeReferenceChanges } from './backend-references.js';
import { createForwardRoute } from './testing.js';

describe('backendIdsOfRoute', () => {
  it('names the backend group and the mirror of a forward route', () => {
    const route = createForwardRoute('r', '/', 'ns/a:80');
    route.policy = { mirror: { backend: 'ns/m:80' } };
    expect(backendIdsOfRoute(route)).toEqual(['ns/a:80', 'ns/m:80']);
  });
});

describe('mergeReferenceChanges', () => {
  it('reports neither added nor removed when an id is dropped and taken again', () => {
    expect(
      mergeReferenceChanges({ added: ['x'], removed: ['a', 'b'] }, { added: ['b', 'c'], removed: ['d'] }),
    ).toEqual({ added: ['x', 'c'], removed: ['a', 'd'] });
  });
});

describe('BackendReferences', () => {
  it('reports an id when its first source refers to it and when its last lets go', () => {
    const refs = new BackendReferences();
    expect(refs.refer('s1', ['a', 'a', 'b'])).toEqual({ added: ['a', 'b'], removed: [] });
    expect(refs.refer('s2', ['a'])).toEqual({ added: [], removed: [] });
    expect(new Map(refs.counts())).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    );
    expect(refs.unrefer('s1')).toEqual({ added: [], removed: ['b'] });
    expect(refs.sourcesOf('a')).toEqual(['s2']);
    expect(refs.unrefer('s2')).toEqual({ added: [], removed: ['a'] });
  });
});
