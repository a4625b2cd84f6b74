/**
 * The sentences behind each decision. Messages say why, hints say what to change; neither names the
 * Ingress, so one decision can be shared by every Ingress in the same situation.
 */
import { DEFAULT_INGRESS_CLASS_ANNOTATION, INGRESS_CLASS_ANNOTATION } from './annotations.js';
import type { ClassResolutionConfig } from './config.js';

/** What the resolver knows about one IngressClass. */
export interface ClassInfo {
  readonly name: string;
  readonly controller: string | undefined;
  /** Ours by controller, or by name in by-name mode. */
  readonly isOwn: boolean;
}

/** Everything the sentences may refer to, computed once per class list. */
export interface MessageContext {
  readonly config: ClassResolutionConfig;
  readonly classesByName: ReadonlyMap<string, ClassInfo>;
  readonly defaultClass: ClassInfo | undefined;
  /** How many classes are marked default; the API server picks the newest. */
  readonly defaultClassCount: number;
  /** Classes whose default-class annotation looks like "true" but is not exactly that string. */
  readonly nearMissDefaults: readonly { readonly name: string; readonly value: unknown }[];
  /** An existing class of ours to point users at, if any. */
  readonly suggestedClassName: string | undefined;
}

const NO_CLASS = `Neither spec.ingressClassName nor the ${INGRESS_CLASS_ANNOTATION} annotation is set`;
const MARK_DEFAULT = `the annotation ${DEFAULT_INGRESS_CLASS_ANNOTATION}: "true"`;

/** Quotes a user-supplied value so that empty strings, spaces and control characters stay visible. */
export function quote(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

// Inside a YAML-looking fix (`spec.ingressClassName: nginx`) plain names read best; anything odd is quoted.
function formatYamlScalar(value: string): string {
  return /^[A-Za-z0-9][-A-Za-z0-9._/]*$/.test(value) ? value : quote(value);
}

function describeController(info: ClassInfo): string {
  return info.controller
    ? `controller ${quote(info.controller)}`
    : 'no controller (its spec.controller is empty)';
}

/** The clause that makes the Ingress ours: set spec.ingressClassName to an existing class of ours, or create one. */
export function describeUseOwnClass(context: MessageContext): string {
  const { config, suggestedClassName, classesByName } = context;
  if (suggestedClassName !== undefined)
    return `set spec.ingressClassName: ${formatYamlScalar(suggestedClassName)}`;
  const controller = formatYamlScalar(config.controllerClass);
  if (!classesByName.has(config.ingressClass)) {
    const name = formatYamlScalar(config.ingressClass);
    return `create IngressClass ${quote(config.ingressClass)} with spec.controller: ${controller} and set spec.ingressClassName: ${name}`;
  }
  return `create an IngressClass with spec.controller: ${controller} and set spec.ingressClassName to its name`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// Once spec.ingressClassName is ours the annotation is dead weight (and blocks re-creating the Ingress).
function describeOverriddenAnnotation(annotation: string | undefined): string {
  return annotation === undefined
    ? ''
    : ` and remove the ${INGRESS_CLASS_ANNOTATION} annotation, which spec.ingressClassName overrides`;
}

/** spec.ingressClassName is empty or can never be a class name. */
export function describeInvalidClassName(className: unknown, context: MessageContext) {
  const message =
    className === ''
      ? 'spec.ingressClassName is an empty string, which names no IngressClass (the API server rejects it).'
      : `spec.ingressClassName is ${quote(className)}, which is not a valid IngressClass name (a lowercase DNS subdomain), so no class can match it.`;
  return { message, hint: `${capitalize(describeUseOwnClass(context))}.` };
}

/** spec.ingressClassName names a class that does not exist. */
export function describeMissingClass(
  className: string,
  annotation: string | undefined,
  context: MessageContext,
) {
  const { config, suggestedClassName } = context;
  const message = `spec.ingressClassName is ${quote(className)}, but no IngressClass of that name exists: it was deleted, or has not been created yet.`;
  const create = `create IngressClass ${quote(className)} with spec.controller: ${formatYamlScalar(config.controllerClass)}`;
  const hint =
    suggestedClassName !== undefined && suggestedClassName !== className
      ? `${capitalize(create)}, or set spec.ingressClassName: ${formatYamlScalar(suggestedClassName)}`
      : capitalize(create);
  return { message, hint: `${hint}${describeOverriddenAnnotation(annotation)}.` };
}

/** spec.ingressClassName names a class of another controller. */
export function describeForeignClass(
  info: ClassInfo,
  annotation: string | undefined,
  context: MessageContext,
) {
  const { config } = context;
  const ours = config.ingressClassByName
    ? `not ${quote(config.controllerClass)}, and its name is not ${quote(config.ingressClass)}`
    : `not ${quote(config.controllerClass)}`;
  const message = `spec.ingressClassName is ${quote(info.name)}, an IngressClass of ${describeController(info)}, ${ours}.`;
  const elsewhere = info.controller ? `; otherwise it is for ${quote(info.controller)} to serve` : '';
  const hint = `If ${quote(config.controllerClass)} should serve it, ${describeUseOwnClass(context)}${describeOverriddenAnnotation(annotation)}${elsewhere}.`;
  return { message, hint };
}

/** The legacy annotation is present and empty. */
export function describeEmptyAnnotation(context: MessageContext) {
  return {
    message: `spec.ingressClassName is not set and the ${INGRESS_CLASS_ANNOTATION} annotation is empty, which names no class; being present, it also keeps the API server from assigning a default IngressClass.`,
    hint: `${capitalize(describeUseOwnClass(context))} and remove the empty ${INGRESS_CLASS_ANNOTATION} annotation.`,
  };
}

/** The legacy annotation names a class other than ours. */
export function describeForeignAnnotation(value: string, context: MessageContext) {
  const { config } = context;
  const info = context.classesByName.get(value);
  const head = `spec.ingressClassName is not set and the ${INGRESS_CLASS_ANNOTATION} annotation is ${quote(value)}, not ${quote(config.ingressClass)}`;
  const remove = `remove the ${INGRESS_CLASS_ANNOTATION} annotation`;
  if (info?.isOwn) {
    return {
      message: `${head}; the annotation is compared with ${quote(config.ingressClass)} only, even though IngressClass ${quote(value)} belongs to this controller.`,
      hint: `Set spec.ingressClassName: ${formatYamlScalar(value)} and ${remove}.`,
    };
  }
  const owner = info ? `; IngressClass ${quote(value)} belongs to ${describeController(info)}` : '';
  const elsewhere = info?.controller ? `; otherwise it is for ${quote(info.controller)} to serve` : '';
  return {
    message: `${head}${owner}.`,
    hint: `If ${quote(config.controllerClass)} should serve it, ${describeUseOwnClass(context)} and ${remove}${elsewhere}.`,
  };
}

/** No class at all and no default class (seed 000's outage). */
export function describeNoClassNoDefault(context: MessageContext) {
  const { config, suggestedClassName } = context;
  const nearMiss = context.nearMissDefaults[0];
  const note = nearMiss
    ? ` (IngressClass ${quote(nearMiss.name)} has ${DEFAULT_INGRESS_CLASS_ANNOTATION}: ${quote(nearMiss.value)}, but only the exact string "true" counts)`
    : '';
  const message = `${NO_CLASS}, and the cluster has no default IngressClass to assign it to a controller${note}.`;
  const useOwn = capitalize(describeUseOwnClass(context));
  if (!config.honorDefaultClass) {
    return {
      message,
      hint: `${useOwn}; marking a class default would not help, because the API server assigns it only to new Ingresses and honorDefaultClass is off.`,
    };
  }
  if (suggestedClassName !== undefined) {
    return {
      message,
      hint: `${useOwn}, or mark IngressClass ${quote(suggestedClassName)} as the cluster default with ${MARK_DEFAULT}.`,
    };
  }
  return { message, hint: `${useOwn}, or mark that class as the cluster default with ${MARK_DEFAULT}.` };
}

/** No class at all, and the default class is another controller's. */
export function describeForeignDefault(info: ClassInfo, context: MessageContext) {
  const { config } = context;
  const newest =
    context.defaultClassCount > 1
      ? `, the newest of ${context.defaultClassCount} classes marked default`
      : '';
  const elsewhere = info.controller ? `; otherwise it is for ${quote(info.controller)} to serve` : '';
  return {
    message: `${NO_CLASS}, and the cluster default IngressClass ${quote(info.name)}${newest} belongs to ${describeController(info)}.`,
    hint: `If ${quote(config.controllerClass)} should serve it, ${describeUseOwnClass(context)}${elsewhere}.`,
  };
}

/** No class at all; the default class is ours but the config does not honour it. */
export function describeDefaultNotHonored(info: ClassInfo) {
  return {
    message: `${NO_CLASS}; the cluster default IngressClass ${quote(info.name)} belongs to this controller, but honorDefaultClass is off and the API server assigns the default only when an Ingress is created.`,
    hint: `Set spec.ingressClassName: ${formatYamlScalar(info.name)}, or turn honorDefaultClass on.`,
  };
}

/** Why an Ingress is ours through spec.ingressClassName. */
export function describeOwnedByClassName(info: ClassInfo, context: MessageContext): string {
  const { config } = context;
  return info.controller === config.controllerClass
    ? `spec.ingressClassName is ${quote(info.name)}, an IngressClass of controller ${quote(config.controllerClass)}.`
    : `spec.ingressClassName is ${quote(info.name)}, the class this controller owns by name (ingressClassByName is on), although its spec.controller is ${quote(info.controller ?? '')}.`;
}

/** A conflict worth surfacing when spec.ingressClassName is ours and the legacy annotation is set too. */
export function describeIgnoredAnnotation(className: string, annotation: string): string {
  const why = 'the API server refuses to create an Ingress that sets both';
  return annotation === className
    ? `The ${INGRESS_CLASS_ANNOTATION} annotation repeats spec.ingressClassName; remove it, since ${why}.`
    : `The ${INGRESS_CLASS_ANNOTATION} annotation ${quote(annotation)} is ignored because spec.ingressClassName is set; remove it, since ${why} and other controllers may still read it.`;
}

/** Why an Ingress is ours through the legacy annotation. */
export function describeOwnedByAnnotation(value: string): string {
  return `spec.ingressClassName is not set and the deprecated ${INGRESS_CLASS_ANNOTATION} annotation is ${quote(value)}, the class this controller owns.`;
}

/** A conflict worth surfacing when the annotation is ours but an IngressClass of that name is not. */
export function describeAnnotationClassConflict(info: ClassInfo, context: MessageContext): string {
  const explicit =
    context.suggestedClassName === undefined
      ? `set spec.ingressClassName to an IngressClass of ${quote(context.config.controllerClass)}`
      : `set spec.ingressClassName: ${formatYamlScalar(context.suggestedClassName)}`;
  return `IngressClass ${quote(info.name)} belongs to ${describeController(info)}, which may serve this Ingress too; to make the choice explicit, ${explicit} and remove the annotation.`;
}

/** Why an Ingress without a class is ours through the default class. */
export function describeOwnedByDefault(info: ClassInfo): string {
  return `${NO_CLASS}, and the cluster default IngressClass ${quote(info.name)} belongs to this controller.`;
}

/** Why an Ingress without a class is ours through watchIngressWithoutClass. */
export function describeOwnedWithoutClass(): string {
  return `${NO_CLASS}, and watchIngressWithoutClass is on.`;
}

/** A conflict worth surfacing when a class-less Ingress is ours but the cluster default is not. */
export function describeForeignDefaultConflict(info: ClassInfo): string {
  return `The cluster default IngressClass ${quote(info.name)} belongs to ${describeController(info)}, which may serve this Ingress too.`;
}
