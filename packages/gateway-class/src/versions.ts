/** Which Gateway API versions we support, checked against the installed CRDs' bundle versions. */
import { BUNDLE_VERSION_ANNOTATION, GATEWAY_API_GROUP } from '@ingresskit/kube-objects';
import type { CustomResourceDefinition } from './types.js';

// Spelled once in kube-objects; re-exported because they were this package's public names.
export { BUNDLE_VERSION_ANNOTATION, GATEWAY_API_GROUP };

/** Which Gateway API bundle versions we support, and what to do with a class when the CRDs are at another. */
export interface VersionPolicy {
  /** Exact versions (`v1.6.1`) or ranges with `x` or missing parts as wildcards (`v1.6.x`, `v1`). */
  supportedVersions: readonly string[];
  /** `accept`: best effort, Accepted=True with SupportedVersion=False; `refuse`: Accepted=False/UnsupportedVersion. */
  onUnsupportedVersion: 'accept' | 'refuse';
}

/** v1.6.x, accepted on a best-effort basis when the CRDs are at another version. */
export const defaultVersionPolicy: VersionPolicy = {
  supportedVersions: ['v1.6.x'],
  onUnsupportedVersion: 'accept',
};

/** Outcome of comparing the installed Gateway API CRDs with the supported versions. */
export interface BundleVersionCheck {
  supported: boolean;
  /** Distinct bundle versions found on Gateway API CRDs, sorted. */
  detected: string[];
  /** One sentence for the SupportedVersion condition, naming the detected and the supported versions. */
  message: string;
}

const VERSION = /^v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/;
const VERSION_PATTERN = /^v(\d+)(?:\.(\d+|x))?(?:\.(\d+|x))?$/;

/** True when `pattern` is an exact version or a range that {@link isSupportedBundleVersion} understands. */
export function isValidVersionPattern(pattern: string): boolean {
  return VERSION.test(pattern) || VERSION_PATTERN.test(pattern);
}

/**
 * True when `version` (e.g. `v1.6.1`) is listed in or covered by one of `supportedVersions`.
 * Pre-releases (`v1.7.0-rc.1`) only match when listed exactly, as in semver ranges.
 */
export function isSupportedBundleVersion(version: string, supportedVersions: readonly string[]): boolean {
  return supportedVersions.some((pattern) => matchesVersionPattern(version, pattern));
}

function matchesVersionPattern(version: string, pattern: string): boolean {
  if (version === pattern) return true;
  const parsedVersion = VERSION.exec(version);
  const parsedPattern = VERSION_PATTERN.exec(pattern);
  if (!parsedVersion || !parsedPattern || parsedVersion[4] !== undefined) return false;
  for (const index of [1, 2, 3]) {
    const part = parsedPattern[index];
    if (part === undefined || part === 'x') continue;
    if (Number(part) !== Number(parsedVersion[index])) return false;
  }
  return true;
}

/**
 * Compares the `bundle-version` annotations of the Gateway API CRDs among `crds` (other groups are
 * ignored) with `supportedVersions`. Supported only when at least one Gateway API CRD is present and
 * every one of them carries a supported version.
 */
export function checkBundleVersions(
  crds: Iterable<CustomResourceDefinition>,
  supportedVersions: readonly string[],
): BundleVersionCheck {
  const supportedText = `supported: ${supportedVersions.join(', ') || '(none)'}`;
  const crdsByVersion = new Map<string, string[]>();
  const unannotated: string[] = [];
  for (const crd of crds) {
    if (crd.spec?.group !== GATEWAY_API_GROUP) continue;
    const name = crd.metadata?.name ?? '(unnamed)';
    const version = crd.metadata?.annotations?.[BUNDLE_VERSION_ANNOTATION];
    if (version === undefined || version === '') {
      unannotated.push(name);
      continue;
    }
    crdsByVersion.set(version, [...(crdsByVersion.get(version) ?? []), name]);
  }
  const detected = [...crdsByVersion.keys()].sort();
  if (detected.length === 0 && unannotated.length === 0) {
    return {
      supported: false,
      detected,
      message: `no Gateway API CustomResourceDefinitions (group ${GATEWAY_API_GROUP}) are installed; ${supportedText}`,
    };
  }
  const unsupported = detected.filter((version) => !isSupportedBundleVersion(version, supportedVersions));
  if (unsupported.length === 0 && unannotated.length === 0) {
    return {
      supported: true,
      detected,
      message: `Gateway API CRDs are at bundle version ${detected.join(', ')} (${supportedText})`,
    };
  }
  const problems = unsupported.map(
    (version) => `bundle version ${version} on ${listNames(crdsByVersion.get(version) ?? [])}`,
  );
  if (unannotated.length > 0) {
    problems.push(`no ${BUNDLE_VERSION_ANNOTATION} annotation on ${listNames(unannotated)}`);
  }
  return {
    supported: false,
    detected,
    message:
      `unsupported Gateway API CRDs: ${problems.join('; ')}; ` +
      `detected: ${detected.join(', ') || '(none)'}; ${supportedText}`,
  };
}

function listNames(names: readonly string[]): string {
  return [...names].sort().join(', ');
}
