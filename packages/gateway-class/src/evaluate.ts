/**
 * The status one of our GatewayClasses should have, decided from plain data, so it can be tested
 * without a cluster.
 */
import { isOwnGatewayClass } from '@ingresskit/class-resolution';
import { GatewayClassConditionType, GatewayClassReason } from './conditions.js';
import { resolveParametersRef, type GatewayClassParameters, type ParametersLookup } from './parameters.js';
import type { Condition, CustomResourceDefinition, GatewayClass, SupportedFeature } from './types.js';
import { checkBundleVersions, defaultVersionPolicy, type VersionPolicy } from './versions.js';

/** What {@link evaluateGatewayClass} needs besides the class itself; all of it plain data or pure reads. */
export interface GatewayClassEvaluationContext {
  /** Our controllerName, e.g. `ingresskit.dev/gateway-controller`. */
  controllerName: string;
  /** Time stamped into `lastTransitionTime` of the desired conditions. */
  now: Date;
  /** Installed CustomResourceDefinitions; only those of group gateway.networking.k8s.io are read. */
  customResourceDefinitions: Iterable<CustomResourceDefinition>;
  /** Reads the object `spec.parametersRef` points at. */
  getParametersObject: ParametersLookup;
  /** Supported Gateway API bundle versions and the policy for others; default {@link defaultVersionPolicy}. */
  versionPolicy?: VersionPolicy;
  /** Gateway API feature names to publish in `status.supportedFeatures`; undefined leaves the field alone. */
  supportedFeatures?: readonly string[];
}

/** The status this controller wants on one of its GatewayClasses. */
export interface GatewayClassEvaluation {
  /** Whether the class is accepted (Accepted=True). */
  accepted: boolean;
  /** The desired `Accepted` and `SupportedVersion` conditions, in that order. */
  conditions: Condition[];
  /** Validated parameters when the parametersRef checks passed, else undefined. */
  parameters: GatewayClassParameters | undefined;
  /** Sorted, de-duplicated `status.supportedFeatures`, or undefined when not configured. */
  supportedFeatures: SupportedFeature[] | undefined;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function formatConditionTime(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * Decides the status of a GatewayClass: null when the class names another controller; otherwise the
 * desired Accepted (Accepted / InvalidParameters / UnsupportedVersion) and SupportedVersion conditions,
 * each with observedGeneration = metadata.generation. Pure: reads only its arguments.
 */
export function evaluateGatewayClass(
  gatewayClass: GatewayClass,
  context: GatewayClassEvaluationContext,
): GatewayClassEvaluation | null {
  if (!isOwnGatewayClass(gatewayClass, context.controllerName)) return null;
  const policy = context.versionPolicy ?? defaultVersionPolicy;
  const observedGeneration = gatewayClass.metadata?.generation ?? 0;
  const lastTransitionTime = formatConditionTime(context.now);
  const condition = (
    type: string,
    status: Condition['status'],
    reason: string,
    message: string,
  ): Condition => ({ type, status, reason, message, observedGeneration, lastTransitionTime });

  const versions = checkBundleVersions(context.customResourceDefinitions, policy.supportedVersions);
  const parameters = resolveParametersRef(gatewayClass.spec?.parametersRef, context.getParametersObject);

  const supportedVersion = versions.supported
    ? condition(
        GatewayClassConditionType.SupportedVersion,
        'True',
        GatewayClassReason.SupportedVersion,
        versions.message,
      )
    : condition(
        GatewayClassConditionType.SupportedVersion,
        'False',
        GatewayClassReason.UnsupportedVersion,
        versions.message,
      );

  let accepted: Condition;
  if (!versions.supported && policy.onUnsupportedVersion === 'refuse') {
    // The version problem is cluster-wide and blocks every class, so it wins the single reason;
    // a parameters problem is still named so the user does not discover it only after upgrading.
    const alsoParameters = parameters.valid ? '' : `; also ${parameters.message}`;
    accepted = condition(
      GatewayClassConditionType.Accepted,
      'False',
      GatewayClassReason.UnsupportedVersion,
      `refusing unsupported Gateway API version: ${versions.message}${alsoParameters}`,
    );
  } else if (!parameters.valid) {
    accepted = condition(
      GatewayClassConditionType.Accepted,
      'False',
      GatewayClassReason.InvalidParameters,
      parameters.message,
    );
  } else {
    const parts = [`accepted by ${context.controllerName}`];
    if (parameters.referent !== undefined) parts.push(`parameters from ${parameters.referent}`);
    if (!versions.supported) parts.push(`best effort: ${versions.message}`);
    accepted = condition(
      GatewayClassConditionType.Accepted,
      'True',
      GatewayClassReason.Accepted,
      parts.join('; '),
    );
  }

  return {
    accepted: accepted.status === 'True',
    conditions: [accepted, supportedVersion],
    parameters: parameters.valid ? parameters.parameters : undefined,
    supportedFeatures:
      context.supportedFeatures === undefined
        ? undefined
        : [...new Set(context.supportedFeatures)].sort().map((name) => ({ name })),
  };
}
