import { describe, expect, it } from 'vitest';
import { SelectorSyntaxError } from './errors.js';
import { matchesLabels, parseLabelSelector } from './label-selector.js';

const labels = { app: 'web', tier: 'front', replicas: '3' };

describe('parseLabelSelector', () => {
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app in (api, web)', true],
    ['app notin (web)', false],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['missing!=x', true],
    ['missing notin (x)', true],
    ['missing in (x)', false],
    ['replicas>2', true],
    ['replicas<3', false],
    ['app=web,tier in (front,back)', true],
    ['app=web,tier=back', false],
    ['', true],
  ])('%j matches {app: web, tier: front, replicas: 3}: %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it('parses every operator into a requirement when the selector combines them', () => {
    expect(parseLabelSelector('a=1,b!=2,c in (x,y),d notin (z),e,!f,g>1,h<2')).toEqual([
      { key: 'a', operator: 'equals', value: '1' },
      { key: 'b', operator: 'notEquals', value: '2' },
      { key: 'c', operator: 'in', values: ['x', 'y'] },
      { key: 'd', operator: 'notIn', values: ['z'] },
      { key: 'e', operator: 'exists' },
      { key: 'f', operator: 'doesNotExist' },
      { key: 'g', operator: 'greaterThan', value: 1 },
      { key: 'h', operator: 'lessThan', value: 2 },
    ]);
  });

  it('accepts prefixed keys and an empty value when they are well formed', () => {
    expect(parseLabelSelector('app.kubernetes.io/name=,x')).toEqual([
      { key: 'app.kubernetes.io/name', operator: 'equals', value: '' },
      { key: 'x', operator: 'exists' },
    ]);
  });

  it.each(['app in web', 'app in ()', 'a=b=c', 'bad key=x', 'a=in valid', 'g>x', 'a,,b'])(
    'rejects %j with a SelectorSyntaxError naming the text',
    (selector) => {
      expect(() => parseLabelSelector(selector)).toThrow(SelectorSyntaxError);
    },
  );
});

describe('matchesLabels', () => {
  it('treats missing labels as an empty map when the object has none', () => {
    expect(matchesLabels(parseLabelSelector('!a'), undefined)).toBe(true);
    expect(matchesLabels(parseLabelSelector('a'), undefined)).toBe(false);
  });
});
