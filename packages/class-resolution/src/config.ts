/**
 * What this controller owns and how it treats Ingresses without a class: the config, its defaults,
 * and the check that it can match anything at all.
 */
import { isValidControllerName } from './controller-name.js';
import { InvalidClassResolutionConfigError } from './errors.js';

/** What this controller owns and how it treats Ingresses without a class. */
export interface ClassResolutionConfig {
  /** The IngressClass `spec.controller` value this controller owns. */
  readonly controllerClass: string;
  /** The legacy `kubernetes.io/ingress.class` value this controller owns, and the class name in by-name mode. */
  readonly ingressClass: string;
  /** Own Ingresses that have no class at all (reported with class `_`). */
  readonly watchIngressWithoutClass: boolean;
  /** Own the IngressClass named `ingressClass` whatever its `spec.controller`. */
  readonly ingressClassByName: boolean;
  /** Own class-less Ingresses when the cluster default IngressClass is ours. */
  readonly honorDefaultClass: boolean;
}

/** The defaults: controller `ingresskit.dev/ingress-controller`, class `nginx`, default class honoured. */
export const defaultClassResolutionConfig: ClassResolutionConfig = Object.freeze({
  controllerClass: 'ingresskit.dev/ingress-controller',
  ingressClass: 'nginx',
  watchIngressWithoutClass: false,
  ingressClassByName: false,
  honorDefaultClass: true,
});

// Kubernetes validates IngressClass spec.controller as a domain-prefixed path of at most 250 characters
// (networking validation, validateIngressClassController); the grammar is Gateway API's controllerName.
const MAX_CONTROLLER_CLASS_LENGTH = 250;

/**
 * Fills `config` from the defaults and checks it; throws InvalidClassResolutionConfigError when no
 * IngressClass could ever match it (for example a class name given as `controllerClass`).
 */
export function normalizeClassResolutionConfig(
  config: Partial<ClassResolutionConfig> = {},
): ClassResolutionConfig {
  const merged = { ...defaultClassResolutionConfig, ...dropUndefined(config) };
  const { controllerClass, ingressClass } = merged;
  if (
    typeof controllerClass !== 'string' ||
    controllerClass.length > MAX_CONTROLLER_CLASS_LENGTH ||
    !isValidControllerName(controllerClass)
  ) {
    throw new InvalidClassResolutionConfigError(
      `controllerClass must be a domain-prefixed path of at most ${MAX_CONTROLLER_CLASS_LENGTH} characters, ` +
        `such as "${defaultClassResolutionConfig.controllerClass}", not ${JSON.stringify(controllerClass)}` +
        ' (IngressClass names go in ingressClass)',
    );
  }
  if (
    typeof ingressClass !== 'string' ||
    ingressClass.trim() === '' ||
    ingressClass !== ingressClass.trim()
  ) {
    throw new InvalidClassResolutionConfigError(
      `ingressClass must be a non-empty class name without surrounding spaces, not ${JSON.stringify(ingressClass)}`,
    );
  }
  for (const key of ['watchIngressWithoutClass', 'ingressClassByName', 'honorDefaultClass'] as const) {
    if (typeof merged[key] !== 'boolean') {
      throw new InvalidClassResolutionConfigError(
        `${key} must be a boolean, not ${JSON.stringify(merged[key])}`,
      );
    }
  }
  return Object.freeze(merged);
}

// `{ honorDefaultClass: undefined }` means "use the default", as it would for an absent key.
function dropUndefined(config: Partial<ClassResolutionConfig>): Partial<ClassResolutionConfig> {
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
}
