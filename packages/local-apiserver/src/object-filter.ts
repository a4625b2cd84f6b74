/** Which objects a list or watch selects: its namespace and parsed label and field selectors. */
import { ApiStatusError, buildBadRequestStatus, SelectorSyntaxError } from './errors.js';
import type { Entry } from './entries.js';
import { matchesFields, parseFieldSelector, type FieldRequirement } from './field-selector.js';
import { matchesLabels, parseLabelSelector, type LabelRequirement } from '@ingresskit/kube-objects/pure';
import type { ResourceDefinition } from './resource-definition.js';

/** Which objects a list or watch wants: a namespace (or all) and parsed selectors. */
export interface ObjectFilter {
  namespace: string | undefined;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

/** The namespace an object of `definition` lives in: undefined for cluster-scoped resources and "all namespaces". */
export function scopeOf(definition: ResourceDefinition, namespace: string | undefined): string | undefined {
  if (!definition.namespaced) return undefined;
  return namespace === '' ? undefined : namespace;
}

/** Parses the selectors of a list or watch into a filter; 400 for malformed selectors. */
export function parseObjectFilter(
  definition: ResourceDefinition,
  namespace: string | undefined,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): ObjectFilter {
  try {
    return {
      namespace: scopeOf(definition, namespace),
      labels: labelSelector ? parseLabelSelector(labelSelector) : [],
      fields: fieldSelector ? parseFieldSelector(fieldSelector, definition.selectableFields) : [],
    };
  } catch (error) {
    if (error instanceof SelectorSyntaxError)
      throw new ApiStatusError(buildBadRequestStatus(error.message), { cause: error });
    throw error;
  }
}

/** True when the entry is in the filter's namespace (if any) and matches its selectors. */
export function matchesFilter(entry: Entry, filter: ObjectFilter): boolean {
  if (filter.namespace !== undefined && entry.object.metadata.namespace !== filter.namespace) return false;
  if (filter.labels.length > 0 && !matchesLabels(filter.labels, entry.object.metadata.labels)) return false;
  if (filter.fields.length > 0 && !matchesFields(filter.fields, entry.object)) return false;
  return true;
}
