import { prepareCrdStatus, validateCrd } from './crd.js';
import { createServiceDefaults, defaultNamespace, defaultSecret } from './defaults.js';
import type { FieldError, ResourceNames } from './errors.js';
import { fromEventsV1, toEventsV1 } from './event-conversion.js';
import { commonSelectableFields } from './field-selector.js';
import { isPlainObject, type KubeObject } from './objects.js';
import {
  validateIngressClassSpec,
  validateIngressClassUpdate,
  validateIngressSpec,
  validateLeaseSpec,
  type NameRule,
} from './validation.js';

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

/** The namespaces every fresh server has. */
export const initialNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const metadataMergeKeys = { 'metadata.finalizers': '', 'metadata.ownerReferences': 'uid' };

const podMergeKeys = {
  ...metadataMergeKeys,
  'spec.containers': 'name',
  'spec.initContainers': 'name',
  'spec.ephemeralContainers': 'name',
  'spec.containers.ports': 'containerPort',
  'spec.initContainers.ports': 'containerPort',
  'spec.containers.env': 'name',
  'spec.initContainers.env': 'name',
  'spec.containers.volumeMounts': 'mountPath',
  'spec.initContainers.volumeMounts': 'mountPath',
  'spec.volumes': 'name',
  'spec.imagePullSecrets': 'name',
  'status.conditions': 'type',
  'status.podIPs': 'ip',
};

function fields(extra: Record<string, string>): Record<string, readonly string[]> {
  const result: Record<string, readonly string[]> = { ...commonSelectableFields };
  for (const [field, path] of Object.entries(extra)) result[field] = path.split('.');
  return result;
}

interface BuiltinInput {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  storage?: string;
  storageApiVersion?: string;
  hasStatus?: boolean;
  keepsStatusOnCreate?: boolean;
  generation?: GenerationRule;
  returnsDeletedObject?: boolean;
  nameRule?: NameRule;
  selectableFields?: Record<string, string>;
  patchMergeKeys?: Record<string, string>;
  prepareCreate?: (object: KubeObject, now: string) => void;
  prepareUpdate?: (object: KubeObject, previous: KubeObject, now: string) => void;
  validate?: (object: KubeObject) => FieldError[];
  validateUpdate?: (object: KubeObject, previous: KubeObject) => FieldError[];
  microTimeFields?: readonly string[];
  convert?: ViewConversion;
}

function defineBuiltin(input: BuiltinInput): ResourceDefinition {
  const apiVersion = input.group === '' ? input.version : `${input.group}/${input.version}`;
  const definition: ResourceDefinition = {
    group: input.group,
    version: input.version,
    plural: input.plural,
    singular: input.singular,
    kind: input.kind,
    listKind: `${input.kind}List`,
    namespaced: input.namespaced,
    shortNames: input.shortNames ?? [],
    categories: input.categories ?? [],
    storage: input.storage ?? (input.group === '' ? input.plural : `${input.plural}.${input.group}`),
    storageApiVersion: input.storageApiVersion ?? apiVersion,
    hasStatus: input.hasStatus ?? false,
    keepsStatusOnCreate: input.keepsStatusOnCreate ?? false,
    generation: input.generation ?? 'none',
    isCustom: false,
    returnsDeletedObject: input.returnsDeletedObject ?? false,
    nameRule: input.nameRule ?? 'subdomain',
    selectableFields: fields(input.selectableFields ?? {}),
    patchMergeKeys: input.patchMergeKeys ?? metadataMergeKeys,
  };
  if (input.prepareCreate) definition.prepareCreate = input.prepareCreate;
  if (input.prepareUpdate) definition.prepareUpdate = input.prepareUpdate;
  if (input.validate) definition.validate = input.validate;
  if (input.validateUpdate) definition.validateUpdate = input.validateUpdate;
  if (input.microTimeFields) definition.microTimeFields = input.microTimeFields;
  if (input.convert) definition.convert = input.convert;
  return definition;
}

// core/v1 and events.k8s.io/v1 Events name their MicroTime fields alike.
const eventMicroTimeFields = ['eventTime', 'series.lastObservedTime'];

const eventFieldSelectors = {
  'involvedObject.kind': 'involvedObject.kind',
  'involvedObject.namespace': 'involvedObject.namespace',
  'involvedObject.name': 'involvedObject.name',
  'involvedObject.uid': 'involvedObject.uid',
  'involvedObject.apiVersion': 'involvedObject.apiVersion',
  'involvedObject.resourceVersion': 'involvedObject.resourceVersion',
  'involvedObject.fieldPath': 'involvedObject.fieldPath',
  reason: 'reason',
  reportingComponent: 'reportingComponent',
  source: 'source.component',
  type: 'type',
};

/** The built-in resources, in discovery order. */
export function listBuiltinResources(): ResourceDefinition[] {
  const serviceDefaults = createServiceDefaults();
  return [
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'namespaces',
      singular: 'namespace',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      hasStatus: true,
      nameRule: 'label',
      returnsDeletedObject: true,
      selectableFields: { 'status.phase': 'status.phase' },
      patchMergeKeys: { ...metadataMergeKeys, 'status.conditions': 'type' },
      prepareCreate: (object) => {
        const spec = isPlainObject(object.spec) ? object.spec : {};
        const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
        object.spec = {
          ...spec,
          finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'],
        };
        object.status = { phase: 'Active' };
        defaultNamespace(object);
      },
      prepareUpdate: (object) => defaultNamespace(object),
    }),
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'services',
      singular: 'service',
      kind: 'Service',
      namespaced: true,
      shortNames: ['svc'],
      categories: ['all'],
      hasStatus: true,
      nameRule: 'dns1035',
      returnsDeletedObject: true,
      selectableFields: { 'spec.clusterIP': 'spec.clusterIP', 'spec.type': 'spec.type' },
      patchMergeKeys: { ...metadataMergeKeys, 'spec.ports': 'port', 'status.conditions': 'type' },
      prepareCreate: (object) => serviceDefaults.prepareCreate(object),
      prepareUpdate: (object, previous) => serviceDefaults.prepareUpdate(object, previous),
    }),
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'endpoints',
      singular: 'endpoints',
      kind: 'Endpoints',
      namespaced: true,
      shortNames: ['ep'],
    }),
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'secrets',
      singular: 'secret',
      kind: 'Secret',
      namespaced: true,
      selectableFields: { type: 'type' },
      prepareCreate: defaultSecret,
      prepareUpdate: defaultSecret,
    }),
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'configmaps',
      singular: 'configmap',
      kind: 'ConfigMap',
      namespaced: true,
      shortNames: ['cm'],
    }),
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'pods',
      singular: 'pod',
      kind: 'Pod',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      hasStatus: true,
      generation: 'spec',
      returnsDeletedObject: true,
      selectableFields: {
        'spec.nodeName': 'spec.nodeName',
        'spec.restartPolicy': 'spec.restartPolicy',
        'spec.schedulerName': 'spec.schedulerName',
        'spec.serviceAccountName': 'spec.serviceAccountName',
        'spec.hostNetwork': 'spec.hostNetwork',
        'status.phase': 'status.phase',
        'status.podIP': 'status.podIP',
        'status.nominatedNodeName': 'status.nominatedNodeName',
      },
      patchMergeKeys: podMergeKeys,
      prepareCreate: (object) => {
        object.status = { phase: 'Pending' };
      },
    }),
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'nodes',
      singular: 'node',
      kind: 'Node',
      namespaced: false,
      shortNames: ['no'],
      hasStatus: true,
      keepsStatusOnCreate: true,
      selectableFields: { 'spec.unschedulable': 'spec.unschedulable' },
      patchMergeKeys: { ...metadataMergeKeys, 'status.addresses': 'type', 'status.conditions': 'type' },
    }),
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'events',
      singular: 'event',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      storage: 'events',
      selectableFields: eventFieldSelectors,
      microTimeFields: eventMicroTimeFields,
    }),
    defineBuiltin({
      group: 'discovery.k8s.io',
      version: 'v1',
      plural: 'endpointslices',
      singular: 'endpointslice',
      kind: 'EndpointSlice',
      namespaced: true,
    }),
    defineBuiltin({
      group: 'networking.k8s.io',
      version: 'v1',
      plural: 'ingresses',
      singular: 'ingress',
      kind: 'Ingress',
      namespaced: true,
      shortNames: ['ing'],
      hasStatus: true,
      generation: 'spec',
      validate: validateIngressSpec,
    }),
    defineBuiltin({
      group: 'networking.k8s.io',
      version: 'v1',
      plural: 'ingressclasses',
      singular: 'ingressclass',
      kind: 'IngressClass',
      namespaced: false,
      generation: 'spec',
      validate: validateIngressClassSpec,
      validateUpdate: validateIngressClassUpdate,
    }),
    defineBuiltin({
      group: 'coordination.k8s.io',
      version: 'v1',
      plural: 'leases',
      singular: 'lease',
      kind: 'Lease',
      namespaced: true,
      validate: validateLeaseSpec,
      microTimeFields: ['spec.acquireTime', 'spec.renewTime'],
    }),
    defineBuiltin({
      group: 'events.k8s.io',
      version: 'v1',
      plural: 'events',
      singular: 'event',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      storage: 'events',
      storageApiVersion: 'v1',
      selectableFields: eventFieldSelectors,
      microTimeFields: eventMicroTimeFields,
      convert: { toView: toEventsV1, fromView: fromEventsV1 },
    }),
    // The kinds an installation applies (deploy/): stored as written, so that `kubectl apply -f
    // deploy/` works against this server; nothing here runs them (no RBAC, no pods).
    defineBuiltin({
      group: '',
      version: 'v1',
      plural: 'serviceaccounts',
      singular: 'serviceaccount',
      kind: 'ServiceAccount',
      namespaced: true,
      shortNames: ['sa'],
    }),
    ...(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'] as const).map((kind) =>
      defineBuiltin({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        plural: `${kind.toLowerCase()}s`,
        singular: kind.toLowerCase(),
        kind,
        namespaced: !kind.startsWith('Cluster'),
      }),
    ),
    defineBuiltin({
      group: 'apps',
      version: 'v1',
      plural: 'deployments',
      singular: 'deployment',
      kind: 'Deployment',
      namespaced: true,
      shortNames: ['deploy'],
      categories: ['all'],
      hasStatus: true,
      generation: 'spec',
    }),
    defineBuiltin({
      group: 'policy',
      version: 'v1',
      plural: 'poddisruptionbudgets',
      singular: 'poddisruptionbudget',
      kind: 'PodDisruptionBudget',
      namespaced: true,
      shortNames: ['pdb'],
      hasStatus: true,
      generation: 'spec',
    }),
    defineBuiltin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      plural: 'validatingwebhookconfigurations',
      singular: 'validatingwebhookconfiguration',
      kind: 'ValidatingWebhookConfiguration',
      namespaced: false,
      generation: 'spec',
    }),
    defineBuiltin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      singular: 'customresourcedefinition',
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      hasStatus: true,
      generation: 'spec',
      validate: validateCrd,
      prepareCreate: (object, now) => prepareCrdStatus(object, now),
      prepareUpdate: (object, previous, now) => prepareCrdStatus(object, now, previous),
    }),
  ];
}
