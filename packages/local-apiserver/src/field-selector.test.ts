import { describe, expect, it } from 'vitest';
import { SelectorSyntaxError } from './errors.js';
import { matchesFields, parseFieldSelector } from './field-selector.js';

const pod = { metadata: { name: 'a', namespace: 'ns' }, spec: { nodeName: 'n1', hostNetwork: false } };
const podFields = {
  'metadata.name': ['metadata', 'name'],
  'metadata.namespace': ['metadata', 'namespace'],
  'spec.nodeName': ['spec', 'nodeName'],
  'spec.hostNetwork': ['spec', 'hostNetwork'],
  'status.phase': ['status', 'phase'],
};

describe('parseFieldSelector', () => {
  it.each([
    ['metadata.name=a', true],
    ['metadata.name==a', true],
    ['metadata.name!=a', false],
    ['metadata.namespace=ns,metadata.name=a', true],
    ['metadata.namespace=other', false],
    ['spec.nodeName=n1', true],
    ['spec.hostNetwork=false', true],
    ['status.phase=', true],
    ['status.phase!=', false],
    ['', true],
  ])('%j matches the pod: %s', (selector, expected) => {
    expect(matchesFields(parseFieldSelector(selector, podFields), pod)).toBe(expected);
  });

  it('rejects a field the resource does not support with the apiserver message', () => {
    expect(() => parseFieldSelector('spec.foo=x')).toThrow(
      new SelectorSyntaxError('field label not supported: spec.foo'),
    );
  });

  it('unescapes commas and equals signs in values when they are escaped', () => {
    const [requirement] = parseFieldSelector('metadata.name=a\\,b\\=c');
    expect(requirement).toMatchObject({ field: 'metadata.name', value: 'a,b=c', operator: 'equals' });
  });

  it('rejects a term without an operator', () => {
    expect(() => parseFieldSelector('metadata.name')).toThrow(SelectorSyntaxError);
  });
});
