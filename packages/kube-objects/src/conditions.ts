/** `metav1.Condition` as the status of Kubernetes objects holds it, and the merge of a writer's conditions into it. */

/** A `metav1.Condition`. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** The `metadata.generation` the writer saw; absent (0) on the API server's default condition. */
  observedGeneration?: number;
  /** RFC 3339 time of the last status change. */
  lastTransitionTime: string;
}

/**
 * Merges `desired` into `existing` by type and returns a new list (inputs are not mutated):
 * conditions of other types keep their place and content, a type appears once, `lastTransitionTime`
 * is kept when the status did not change, and a condition whose observedGeneration is higher than
 * the desired one is kept as it is (the desired one came from a stale view).
 */
export function mergeConditions(
  existing: readonly Condition[] | undefined,
  desired: readonly Condition[],
): Condition[] {
  const desiredByType = new Map<string, Condition>();
  for (const condition of desired) desiredByType.set(condition.type, condition);

  const merged: Condition[] = [];
  const placed = new Set<string>();
  for (const current of existing ?? []) {
    const wanted = desiredByType.get(current.type);
    if (wanted === undefined) {
      merged.push(current);
      continue;
    }
    // A list that already holds the type twice (possible on servers that do not enforce
    // listType=map) collapses to the first entry.
    if (placed.has(current.type)) continue;
    placed.add(current.type);
    merged.push(mergeOne(current, wanted));
  }
  for (const [type, wanted] of desiredByType) {
    if (!placed.has(type)) merged.push(wanted);
  }
  return merged;
}

function mergeOne(current: Condition, wanted: Condition): Condition {
  if ((current.observedGeneration ?? 0) > (wanted.observedGeneration ?? 0)) return current;
  if (current.status === wanted.status) {
    return { ...wanted, lastTransitionTime: current.lastTransitionTime };
  }
  return wanted;
}
