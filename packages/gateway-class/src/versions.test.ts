import { describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from './types.js';
import {
  BUNDLE_VERSION_ANNOTATION,
  checkBundleVersions,
  isSupportedBundleVersion,
  isValidVersionPattern,
} from './versions.js';

function crd(
  name: string,
  version: string | undefined,
  group = 'gateway.networking.k8s.io',
): CustomResourceDefinition {
  return {
    metadata: {
      name: `${name}.${group}`,
      annotations: version === undefined ? {} : { [BUNDLE_VERSION_ANNOTATION]: version },
    },
    spec: { group },
  };
}

describe('isSupportedBundleVersion', () => {
  it.each([
    ['v1.6.1', ['v1.6.x'], true],
    ['v1.6.0', ['v1.6.x'], true],
    ['v1.6.12', ['v1.6'], true],
    ['v1.7.0', ['v1.6.x'], false],
    ['v1.5.9', ['v1.6.x'], false],
    ['v1.7.0', ['v1.6.x', 'v1.7.0'], true],
    ['v1.9.3', ['v1'], true],
    ['v2.0.0', ['v1.x'], false],
    ['v1.6.1', ['v1.6.1'], true],
    ['v1.6.2', ['v1.6.1'], false],
    ['v1.7.0-rc.1', ['v1.7.x'], false],
    ['v1.7.0-rc.1', ['v1.7.0-rc.1'], true],
    ['v0.0.0-dev', ['v1.6.x'], false],
    ['1.6.1', ['v1.6.x'], false],
    ['v1.6.1', [], false],
  ] as const)('answers %s against %j with %s', (version, supported, expected) => {
    expect(isSupportedBundleVersion(version, supported)).toBe(expected);
  });
});

describe('isValidVersionPattern', () => {
  it('accepts versions and ranges and rejects anything else', () => {
    for (const pattern of ['v1.6.1', 'v1.6.x', 'v1.x', 'v1', 'v1.7.0-rc.1']) {
      expect(isValidVersionPattern(pattern)).toBe(true);
    }
    for (const pattern of ['1.6.1', 'v1.6.*', '>=v1.6.0', '', 'latest']) {
      expect(isValidVersionPattern(pattern)).toBe(false);
    }
  });
});

describe('checkBundleVersions', () => {
  it('is supported when every Gateway API CRD carries a supported version', () => {
    const check = checkBundleVersions(
      [crd('gatewayclasses', 'v1.6.1'), crd('gateways', 'v1.6.1'), crd('foos', undefined, 'example.net')],
      ['v1.6.x'],
    );
    expect(check).toEqual({
      supported: true,
      detected: ['v1.6.1'],
      message: 'Gateway API CRDs are at bundle version v1.6.1 (supported: v1.6.x)',
    });
  });

  it('lists the detected and the supported versions when a CRD is at an unsupported version', () => {
    const check = checkBundleVersions(
      [crd('gatewayclasses', 'v1.6.1'), crd('httproutes', 'v1.7.0'), crd('gateways', 'v1.7.0')],
      ['v1.6.x'],
    );
    expect(check.supported).toBe(false);
    expect(check.detected).toEqual(['v1.6.1', 'v1.7.0']);
    expect(check.message).toBe(
      'unsupported Gateway API CRDs: bundle version v1.7.0 on gateways.gateway.networking.k8s.io, ' +
        'httproutes.gateway.networking.k8s.io; detected: v1.6.1, v1.7.0; supported: v1.6.x',
    );
  });

  it('names the CRDs that lack the bundle-version annotation', () => {
    const check = checkBundleVersions(
      [crd('gatewayclasses', 'v1.6.1'), crd('gateways', undefined)],
      ['v1.6.x'],
    );
    expect(check.supported).toBe(false);
    expect(check.message).toContain(
      `no ${BUNDLE_VERSION_ANNOTATION} annotation on gateways.gateway.networking.k8s.io`,
    );
  });

  it('is unsupported when no Gateway API CRD is installed', () => {
    const check = checkBundleVersions([crd('foos', 'v1.6.1', 'example.net')], ['v1.6.x']);
    expect(check.supported).toBe(false);
    expect(check.message).toContain('no Gateway API CustomResourceDefinitions');
  });
});
