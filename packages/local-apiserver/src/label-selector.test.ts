import { describe, expect, it } from 'vitest';
import { matchesLabels, parseLabelSelector } from './index.js';

const labels = { app: 'web', tier: 'front' };

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
    ['app=web,tier in (front,back)', true],
    ['app=web,tier=back', false],
    ['', true],
  ])('%j matches {app: web, tier: front}: %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it('rejects malformed requirements with the offending text', () => {
    expect(() => parseLabelSelector('app in web')).toThrow(/app in web/);
  });
});
