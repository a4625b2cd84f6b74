/**
 * The conditions of one parent status of an HTTPRoute: Accepted from its attachment and its rules,
 * ResolvedRefs from its backends, and PartiallyInvalid when only some rules were left out.
 */
import { ConditionType, createCondition, RouteReason } from './conditions.js';
import type { ParentDecision } from './parent-attachment.js';
import type { TranslatedRules } from './rules.js';
import type { ConditionDraft } from './types.js';

/** Builds the conditions for one parentRef's decision, observed at `generation`. */
export function buildParentConditions(
  decision: ParentDecision,
  rules: TranslatedRules,
  generation: number | undefined,
): ConditionDraft[] {
  const conditions: ConditionDraft[] = [];
  const allRulesInvalid = rules.ruleCount > 0 && rules.invalidRules.length === rules.ruleCount;
  if (decision.reason !== RouteReason.Accepted) {
    conditions.push(
      createCondition(ConditionType.Accepted, false, decision.reason, decision.message, generation),
    );
  } else if (allRulesInvalid) {
    conditions.push(
      createCondition(
        ConditionType.Accepted,
        false,
        RouteReason.UnsupportedValue,
        `no rule can be served: ${rules.invalidRules.join('; ')}`,
        generation,
      ),
    );
  } else {
    conditions.push(
      createCondition(ConditionType.Accepted, true, RouteReason.Accepted, decision.message, generation),
    );
  }
  conditions.push(
    rules.refProblem === undefined
      ? createCondition(
          ConditionType.ResolvedRefs,
          true,
          RouteReason.ResolvedRefs,
          'all references are resolved',
          generation,
        )
      : createCondition(
          ConditionType.ResolvedRefs,
          false,
          rules.refProblem.reason,
          rules.refProblem.message,
          generation,
        ),
  );
  if (rules.invalidRules.length > 0 && !allRulesInvalid) {
    conditions.push(
      createCondition(
        ConditionType.PartiallyInvalid,
        true,
        RouteReason.UnsupportedValue,
        `rules left out: ${rules.invalidRules.join('; ')}`,
        generation,
      ),
    );
  }
  return conditions;
}
