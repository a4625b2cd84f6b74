/**
 * Whether this controller owns an Ingress, decided in ingress-nginx's order: its class name, the
 * legacy annotation, then the cluster's default class.
 */
import {
  DEFAULT_INGRESS_CLASS_ANNOTATION,
  INGRESS_CLASS_ANNOTATION,
  WITHOUT_CLASS_NAME,
} from './annotations.js';
import { normalizeClassResolutionConfig, type ClassResolutionConfig } from './config.js';
import type { ClassDecision, NotOwnedDecision, NotOwnedReason, OwnedDecision, OwnedVia } from './decision.js';
import { isDefaultIngressClass, pickDefaultIngressClass } from './default-class.js';
import {
  describeAnnotationClassConflict,
  describeDefaultNotHonored,
  describeEmptyAnnotation,
  describeForeignAnnotation,
  describeForeignClass,
  describeForeignDefault,
  describeForeignDefaultConflict,
  describeIgnoredAnnotation,
  describeInvalidClassName,
  describeMissingClass,
  describeNoClassNoDefault,
  describeOwnedByAnnotation,
  describeOwnedByClassName,
  describeOwnedByDefault,
  describeOwnedWithoutClass,
  type ClassInfo,
  type MessageContext,
} from './messages.js';
import type { IngressClassLike, IngressLike } from './types.js';

/** Class resolution prepared for one list of IngressClasses: resolve many Ingresses without rescanning. */
export interface IngressClassResolver {
  /** The complete config in use (defaults filled in). */
  readonly config: ClassResolutionConfig;
  /** Name of the cluster default IngressClass, whoever owns it; undefined when none is marked default. */
  readonly defaultClassName: string | undefined;
  /** Decides whether this controller owns `ingress`; never throws for any Ingress shape. */
  resolve(ingress: IngressLike): ClassDecision;
}

// Class names of real Kubernetes objects are DNS-1123 subdomains (at most 253 characters).
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NAME_LENGTH = 253;
// Decisions are cached by the names Ingresses use; a bound keeps hostile or generated names from growing it.
const MAX_CACHED_DECISIONS = 4096;

/** True when `ingressClass` belongs to this controller: by `spec.controller`, or by name in by-name mode. */
export function isOwnIngressClass(
  ingressClass: IngressClassLike,
  config: Partial<ClassResolutionConfig> = {},
): boolean {
  const {
    controllerClass,
    ingressClass: ownName,
    ingressClassByName,
  } = normalizeClassResolutionConfig(config);
  return (
    ingressClass.spec?.controller === controllerClass ||
    (ingressClassByName && ingressClass.metadata?.name === ownName)
  );
}

/**
 * Prepares resolution against one snapshot of `ingressClasses` (read once, never mutated);
 * throws InvalidClassResolutionConfigError for an unusable config.
 */
export function createIngressClassResolver(
  ingressClasses: readonly IngressClassLike[],
  config: Partial<ClassResolutionConfig> = {},
): IngressClassResolver {
  const context = prepareContext(ingressClasses, normalizeClassResolutionConfig(config));
  const byClassName = new Map<string, ClassDecision>();
  const byAnnotation = new Map<string, ClassDecision>();
  let withoutClass: ClassDecision | undefined;

  function resolve(ingress: IngressLike): ClassDecision {
    const className = ingress.spec?.ingressClassName;
    const rawAnnotation = ingress.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION];
    // JSON may carry null (a YAML `key:` with no value), which the API server stores as ""; other non-strings read as text.
    const annotation =
      rawAnnotation === undefined
        ? undefined
        : typeof rawAnnotation === 'string'
          ? rawAnnotation
          : String(rawAnnotation ?? '');
    if (className !== undefined && className !== null) {
      // The field wins, as in ingress-nginx. The API server refuses to create an Ingress with both, so they
      // meet only after an update or in a manifest; the annotation then changes the wording, not the outcome.
      if (typeof className !== 'string') return decideByClassName(className, annotation, context);
      const key = annotation === undefined ? className : `${className}\u0000${annotation}`;
      return (
        byClassName.get(key) ?? remember(byClassName, key, decideByClassName(className, annotation, context))
      );
    }
    if (annotation !== undefined) {
      return (
        byAnnotation.get(annotation) ??
        remember(byAnnotation, annotation, decideByAnnotation(annotation, context))
      );
    }
    withoutClass ??= decideWithoutClass(context);
    return withoutClass;
  }

  return Object.freeze({ config: context.config, defaultClassName: context.defaultClass?.name, resolve });
}

/**
 * Decides whether this controller owns `ingress`, in ingress-nginx's order: spec.ingressClassName,
 * then the legacy annotation, then (no class at all) the cluster default class and watchIngressWithoutClass.
 * Prepares the class list on every call; use createIngressClassResolver for many Ingresses.
 */
export function resolveIngressClass(
  ingress: IngressLike,
  ingressClasses: readonly IngressClassLike[],
  config: Partial<ClassResolutionConfig> = {},
): ClassDecision {
  return createIngressClassResolver(ingressClasses, config).resolve(ingress);
}

function remember(cache: Map<string, ClassDecision>, key: string, decision: ClassDecision): ClassDecision {
  if (cache.size < MAX_CACHED_DECISIONS) cache.set(key, decision);
  return decision;
}

function prepareContext(
  ingressClasses: readonly IngressClassLike[],
  config: ClassResolutionConfig,
): MessageContext {
  const classesByName = new Map<string, ClassInfo>();
  const nearMissDefaults: { name: string; value: unknown }[] = [];
  let defaultClassCount = 0;
  for (const ingressClass of ingressClasses) {
    const name = ingressClass.metadata?.name;
    // Names are unique in a cluster; with duplicates in hand-made input the first one wins.
    if (typeof name !== 'string' || name === '' || classesByName.has(name)) continue;
    const rawController = ingressClass.spec?.controller;
    const controller = typeof rawController === 'string' && rawController !== '' ? rawController : undefined;
    const isOwn =
      controller === config.controllerClass || (config.ingressClassByName && name === config.ingressClass);
    classesByName.set(name, Object.freeze({ name, controller, isOwn }));
    if (isDefaultIngressClass(ingressClass)) {
      defaultClassCount += 1;
      continue;
    }
    const marker: unknown = ingressClass.metadata?.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION];
    // `True`, `"true "` or an unquoted YAML boolean look default to a person but not to the API server.
    if ((typeof marker === 'string' || marker === true) && String(marker).trim().toLowerCase() === 'true') {
      nearMissDefaults.push({ name, value: marker });
    }
  }
  const defaultName = pickDefaultIngressClass(ingressClasses)?.metadata?.name;
  const defaultClass = typeof defaultName === 'string' ? classesByName.get(defaultName) : undefined;
  return {
    config,
    classesByName,
    defaultClass,
    defaultClassCount,
    nearMissDefaults,
    suggestedClassName: pickSuggestedClassName(classesByName, defaultClass, config),
  };
}

// The class to point users at: the default if it is ours, else the one named like our legacy class, else the first by name.
function pickSuggestedClassName(
  classesByName: ReadonlyMap<string, ClassInfo>,
  defaultClass: ClassInfo | undefined,
  config: ClassResolutionConfig,
): string | undefined {
  if (defaultClass?.isOwn) return defaultClass.name;
  if (classesByName.get(config.ingressClass)?.isOwn) return config.ingressClass;
  let first: string | undefined;
  for (const info of classesByName.values()) {
    if (info.isOwn && (first === undefined || info.name < first)) first = info.name;
  }
  return first;
}

function decideByClassName(
  className: unknown,
  annotation: string | undefined,
  context: MessageContext,
): ClassDecision {
  const info = typeof className === 'string' ? context.classesByName.get(className) : undefined;
  if (info === undefined) {
    if (typeof className !== 'string' || !isDnsSubdomain(className)) {
      const { message, hint } = describeInvalidClassName(className, context);
      return buildNotOwnedDecision(
        'class-name-invalid',
        message,
        hint,
        typeof className === 'string' ? className : undefined,
      );
    }
    const { message, hint } = describeMissingClass(className, annotation, context);
    return buildNotOwnedDecision('class-not-found', message, hint, className);
  }
  if (info.isOwn) {
    const warning = annotation === undefined ? undefined : describeIgnoredAnnotation(info.name, annotation);
    return buildOwnedDecision(
      info.name,
      'ingressClassName',
      describeOwnedByClassName(info, context),
      warning,
    );
  }
  const { message, hint } = describeForeignClass(info, annotation, context);
  return buildNotOwnedDecision('class-other-controller', message, hint, info.name, info.controller);
}

function decideByAnnotation(value: string, context: MessageContext): ClassDecision {
  if (value === context.config.ingressClass) {
    const info = context.classesByName.get(value);
    const warning = info && !info.isOwn ? describeAnnotationClassConflict(info, context) : undefined;
    return buildOwnedDecision(value, 'annotation', describeOwnedByAnnotation(value), warning);
  }
  if (value === '') {
    const { message, hint } = describeEmptyAnnotation(context);
    return buildNotOwnedDecision('annotation-empty', message, hint);
  }
  const info = context.classesByName.get(value);
  const { message, hint } = describeForeignAnnotation(value, context);
  return buildNotOwnedDecision(
    'annotation-other-class',
    message,
    hint,
    value,
    info?.isOwn ? undefined : info?.controller,
  );
}

function decideWithoutClass(context: MessageContext): ClassDecision {
  const { config, defaultClass } = context;
  if (defaultClass?.isOwn && config.honorDefaultClass) {
    return buildOwnedDecision(defaultClass.name, 'default-class', describeOwnedByDefault(defaultClass));
  }
  if (config.watchIngressWithoutClass) {
    const warning =
      defaultClass && !defaultClass.isOwn ? describeForeignDefaultConflict(defaultClass) : undefined;
    return buildOwnedDecision(WITHOUT_CLASS_NAME, 'without-class', describeOwnedWithoutClass(), warning);
  }
  if (defaultClass === undefined) {
    const { message, hint } = describeNoClassNoDefault(context);
    return buildNotOwnedDecision('no-class-no-default', message, hint);
  }
  if (!defaultClass.isOwn) {
    const { message, hint } = describeForeignDefault(defaultClass, context);
    return buildNotOwnedDecision(
      'default-class-other-controller',
      message,
      hint,
      defaultClass.name,
      defaultClass.controller,
    );
  }
  const { message, hint } = describeDefaultNotHonored(defaultClass);
  return buildNotOwnedDecision('default-class-not-honored', message, hint, defaultClass.name);
}

function buildOwnedDecision(
  className: string,
  via: OwnedVia,
  message: string,
  warning?: string,
): OwnedDecision {
  return Object.freeze(
    warning === undefined
      ? { owned: true, className, via, message }
      : { owned: true, className, via, message, warning },
  );
}

function buildNotOwnedDecision(
  reason: NotOwnedReason,
  message: string,
  hint: string,
  className?: string,
  controller?: string,
): NotOwnedDecision {
  return Object.freeze({
    owned: false,
    reason,
    message,
    hint,
    ...(className === undefined ? {} : { className }),
    ...(controller === undefined ? {} : { controller }),
  });
}

function isDnsSubdomain(name: string): boolean {
  return name.length <= MAX_NAME_LENGTH && DNS_SUBDOMAIN.test(name);
}
