/**
 * CustomResourceDefinitions on the local server: validated, given the status kube-apiserver's
 * controllers set, and served as resources of their own.
 */
import type { FieldError } from './errors.js';
import { commonSelectableFields } from './field-selector.js';
import { isPlainObject, type JsonObject, type KubeObject } from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';
import { isDnsLabel } from './validation.js';

/** The storage id of the CustomResourceDefinition resource itself. */
export const crdStorage = 'customresourcedefinitions.apiextensions.k8s.io';

interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  hasStatus: boolean;
  selectableFields: string[];
}

function readStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function readNames(spec: JsonObject): CrdNames {
  const names = isPlainObject(spec.names) ? spec.names : {};
  const plural = typeof names.plural === 'string' ? names.plural : '';
  const kind = typeof names.kind === 'string' ? names.kind : '';
  return {
    plural,
    singular:
      typeof names.singular === 'string' && names.singular !== '' ? names.singular : kind.toLowerCase(),
    kind,
    listKind: typeof names.listKind === 'string' && names.listKind !== '' ? names.listKind : `${kind}List`,
    shortNames: readStrings(names.shortNames),
    categories: readStrings(names.categories),
  };
}

function readVersions(spec: JsonObject): CrdVersion[] {
  const versions = Array.isArray(spec.versions) ? (spec.versions as unknown[]) : [];
  return versions.filter(isPlainObject).map((version) => {
    const subresources = isPlainObject(version.subresources) ? version.subresources : {};
    const selectable = Array.isArray(version.selectableFields) ? (version.selectableFields as unknown[]) : [];
    return {
      name: typeof version.name === 'string' ? version.name : '',
      served: version.served === true,
      storage: version.storage === true,
      hasStatus: isPlainObject(subresources.status),
      selectableFields: selectable
        .map((field) => (isPlainObject(field) && typeof field.jsonPath === 'string' ? field.jsonPath : ''))
        .filter((path) => path.startsWith('.')),
    };
  });
}

/** Field errors for a CustomResourceDefinition: its name, group, names, scope and versions. */
export function validateCrd(crd: KubeObject): FieldError[] {
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  const errors: FieldError[] = [];
  const group = typeof spec.group === 'string' ? spec.group : '';
  const names = readNames(spec);
  if (group === '') errors.push({ type: 'FieldValueRequired', field: 'spec.group', detail: '' });
  else if (!group.includes('.')) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'spec.group',
      value: group,
      detail: 'should be a domain with at least one dot',
    });
  }
  if (names.plural === '')
    errors.push({ type: 'FieldValueRequired', field: 'spec.names.plural', detail: '' });
  else if (!isDnsLabel(names.plural)) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'spec.names.plural',
      value: names.plural,
      detail: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
    });
  }
  if (names.kind === '') errors.push({ type: 'FieldValueRequired', field: 'spec.names.kind', detail: '' });
  if (crd.metadata.name !== `${names.plural}.${group}`) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'metadata.name',
      value: crd.metadata.name ?? '',
      detail: 'must be spec.names.plural+"."+spec.group',
    });
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    errors.push({
      type: 'FieldValueNotSupported',
      field: 'spec.scope',
      value: spec.scope ?? '',
      detail: 'supported values: "Cluster", "Namespaced"',
    });
  }
  const versions = readVersions(spec);
  if (versions.length === 0) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'spec.versions',
      value: [],
      detail: 'must have exactly one version marked as storage version',
    });
  } else if (versions.filter((version) => version.storage).length !== 1) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'spec.versions',
      value: versions.map((version) => version.name),
      detail: 'must have exactly one version marked as storage version',
    });
  }
  versions.forEach((version, index) => {
    if (!isDnsLabel(version.name)) {
      errors.push({
        type: 'FieldValueInvalid',
        field: `spec.versions[${index}].name`,
        value: version.name,
        detail: 'must be a DNS-1035 label',
      });
    }
  });
  return errors;
}

/** Sets the status the CRD controllers of kube-apiserver would: names accepted, established, stored versions. */
export function prepareCrdStatus(crd: KubeObject, now: string, previous?: KubeObject): void {
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  const names = readNames(spec);
  const storage = readVersions(spec).find((version) => version.storage)?.name;
  const previousStatus = previous && isPlainObject(previous.status) ? previous.status : {};
  const stored = new Set(readStrings(previousStatus.storedVersions));
  if (storage !== undefined) stored.add(storage);
  const accepted: JsonObject = {
    plural: names.plural,
    singular: names.singular,
    kind: names.kind,
    listKind: names.listKind,
  };
  if (names.shortNames.length > 0) accepted.shortNames = names.shortNames;
  if (names.categories.length > 0) accepted.categories = names.categories;
  const previousConditions = Array.isArray(previousStatus.conditions) ? previousStatus.conditions : undefined;
  crd.status = {
    conditions: previousConditions ?? [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: now,
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: now,
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames: accepted,
    storedVersions: [...stored],
  };
}

/** The resources a CRD serves: one definition per served version, all sharing one storage. */
export function defineCrdResources(crd: KubeObject): ResourceDefinition[] {
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  const names = readNames(spec);
  const versions = readVersions(spec);
  const storageVersion = versions.find((version) => version.storage)?.name ?? versions[0]?.name ?? 'v1';
  return versions
    .filter((version) => version.served)
    .map((version) => {
      const selectableFields: Record<string, readonly string[]> = { ...commonSelectableFields };
      for (const jsonPath of version.selectableFields)
        selectableFields[jsonPath.slice(1)] = jsonPath.slice(1).split('.');
      return {
        group,
        version: version.name,
        plural: names.plural,
        singular: names.singular,
        kind: names.kind,
        listKind: names.listKind,
        namespaced: spec.scope === 'Namespaced',
        shortNames: names.shortNames,
        categories: names.categories,
        storage: `${names.plural}.${group}`,
        storageApiVersion: `${group}/${storageVersion}`,
        hasStatus: version.hasStatus,
        keepsStatusOnCreate: false,
        generation: 'nonMetadata',
        isCustom: true,
        returnsDeletedObject: false,
        nameRule: 'subdomain',
        selectableFields,
        patchMergeKeys: {},
      } satisfies ResourceDefinition;
    });
}
