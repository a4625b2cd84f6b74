/**
 * The shape of one served resource: everything the server needs to know to store, validate,
 * default, patch, select and serve one group/version/plural endpoint.
 */
import type { FieldError, ResourceNames } from './errors.js';
import type { KubeObject } from './objects.js';
import type { NameRule } from './validation.js';

/** When `metadata.generation` is bumped: never, on `spec` changes, or on any non-metadata change. */
export type GenerationRule = 'none' | 'spec' | 'nonMetadata';

/** Converts between the stored shape and the shape one endpoint serves (core/v1 ↔ events.k8s.io/v1 Events). */
export interface ViewConversion {
  toView(stored: KubeObject): KubeObject;
  fromView(view: KubeObject): KubeObject;
}

/** Everything the server knows about one served resource (one group/version/plural endpoint). */
export interface ResourceDefinition extends ResourceNames {
  version: string;
  singular: string;
  listKind: string;
  namespaced: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  /** Endpoints with the same storage id serve the same objects (all versions of a CRD, both Event APIs). */
  storage: string;
  /** The apiVersion objects are stored under. */
  storageApiVersion: string;
  hasStatus: boolean;
  /** Whether create keeps a client-supplied status (Nodes) or clears it (everything with a status subresource). */
  keepsStatusOnCreate: boolean;
  generation: GenerationRule;
  /** Custom resource semantics: updates need a resourceVersion, strategic merge patch is refused. */
  isCustom: boolean;
  /** Whether a delete answers with the deleted object instead of a `Status` (Pods, Services). */
  returnsDeletedObject: boolean;
  nameRule: NameRule;
  /** Field selectors the resource supports, each with its path in the stored object. */
  selectableFields: Readonly<Record<string, readonly string[]>>;
  /** Strategic-merge-patch list keys by dotted path (`spec.containers` → `name`); `''` merges a primitive set. */
  patchMergeKeys: Readonly<Record<string, string>>;
  /** Sets server-owned defaults on create (Namespace phase, Pod phase, CRD status); mutates `object`. */
  prepareCreate?: (object: KubeObject, now: string) => void;
  /** Sets server-owned fields on update (CRD status); mutates `object`, never `previous`. */
  prepareUpdate?: (object: KubeObject, previous: KubeObject, now: string) => void;
  /** Resource-specific validation of the stored shape, after the common metadata checks. */
  validate?: (object: KubeObject) => FieldError[];
  /** Checks of an update against the stored object (immutable fields), after `validate`. */
  validateUpdate?: (object: KubeObject, previous: KubeObject) => FieldError[];
  /** Dotted paths of `metav1.MicroTime` fields in the served shape, checked while a body is decoded. */
  microTimeFields?: readonly string[];
  convert?: ViewConversion;
}
