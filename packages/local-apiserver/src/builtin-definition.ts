/**
 * Builds a built-in ResourceDefinition from the few fields a table entry states, filling in what
 * Kubernetes derives (apiVersion, listKind, storage id) and the defaults of everything else.
 */
import { commonSelectableFields } from './field-selector.js';
import type { GenerationRule, ResourceDefinition } from './resource-definition.js';
import type { NameRule } from './validation.js';

/** The strategic-merge-patch keys of the metadata every resource has. */
export const metadataMergeKeys = { 'metadata.finalizers': '', 'metadata.ownerReferences': 'uid' };

function buildSelectableFields(extra: Record<string, string>): Record<string, readonly string[]> {
  const result: Record<string, readonly string[]> = { ...commonSelectableFields };
  for (const [field, path] of Object.entries(extra)) result[field] = path.split('.');
  return result;
}

/** A built-in table entry: selectable fields as dotted paths, everything not stated defaulted. */
export interface BuiltinInput extends Pick<
  ResourceDefinition,
  'prepareCreate' | 'prepareUpdate' | 'validate' | 'validateUpdate' | 'microTimeFields' | 'convert'
> {
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
}

/** Defines a built-in resource from its table entry; functions are set only when stated. */
export function defineBuiltin(input: BuiltinInput): ResourceDefinition {
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
    selectableFields: buildSelectableFields(input.selectableFields ?? {}),
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
