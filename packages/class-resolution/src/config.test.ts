import { describe, expect, it } from 'vitest';
import {
  defaultClassResolutionConfig,
  InvalidClassResolutionConfigError,
  normalizeClassResolutionConfig,
  type ClassResolutionConfig,
} from './index.js';

describe('defaultClassResolutionConfig', () => {
  it('holds the documented defaults and cannot be changed', () => {
    expect(defaultClassResolutionConfig).toEqual({
      controllerClass: 'ingresskit.dev/ingress-controller',
      ingressClass: 'nginx',
      watchIngressWithoutClass: false,
      ingressClassByName: false,
      honorDefaultClass: true,
    });
    expect(Object.isFrozen(defaultClassResolutionConfig)).toBe(true);
  });
});

describe('normalizeClassResolutionConfig', () => {
  it('fills missing and undefined keys from the defaults', () => {
    expect(normalizeClassResolutionConfig({ ingressClass: 'edge', honorDefaultClass: undefined })).toEqual({
      ...defaultClassResolutionConfig,
      ingressClass: 'edge',
    });
    expect(normalizeClassResolutionConfig()).toEqual(defaultClassResolutionConfig);
  });

  it('does not modify the config it is given', () => {
    const config = Object.freeze({ watchIngressWithoutClass: true });
    expect(normalizeClassResolutionConfig(config).watchIngressWithoutClass).toBe(true);
    expect(config).toEqual({ watchIngressWithoutClass: true });
  });

  it.each<[string, Partial<ClassResolutionConfig>, RegExp]>([
    [
      'a class name as controllerClass',
      { controllerClass: 'nginx' },
      /controllerClass .*"nginx".*ingressClass/,
    ],
    ['a controllerClass without a path', { controllerClass: 'example.com/' }, /controllerClass/],
    ['a controllerClass over 250 characters', { controllerClass: `example.com/${'x'.repeat(239)}` }, /250/],
    ['an empty ingressClass', { ingressClass: '' }, /ingressClass/],
    ['an ingressClass with spaces around it', { ingressClass: ' nginx' }, /ingressClass/],
    ['a non-boolean flag', { honorDefaultClass: 'yes' as never }, /honorDefaultClass must be a boolean/],
  ])('throws InvalidClassResolutionConfigError for %s', (_title, config, message) => {
    let thrown: unknown;
    try {
      normalizeClassResolutionConfig(config);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidClassResolutionConfigError);
    expect(thrown).toMatchObject({
      name: 'InvalidClassResolutionConfigError',
      code: 'ERR_INVALID_CLASS_RESOLUTION_CONFIG',
    });
    expect((thrown as Error).message).toMatch(message);
  });

  it('accepts a controllerClass of exactly 250 characters', () => {
    const controllerClass = `example.com/${'x'.repeat(238)}`;
    expect(normalizeClassResolutionConfig({ controllerClass }).controllerClass).toBe(controllerClass);
  });
});
