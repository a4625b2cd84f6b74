/** A class decision told in plain words, for the people who read Events, logs and the CLI. */
import type { ClassDecision } from './decision.js';
import type { IngressLike } from './types.js';

/**
 * One or two plain sentences for people: which Ingress (namespace/name), whether it is served, why,
 * and either the fix (ignored) or a conflict to look at (served). Suitable for Events, logs and CLIs.
 */
export function explainDecision(ingress: IngressLike, decision: ClassDecision): string {
  const subject = `Ingress ${describeIngress(ingress)}`;
  if (decision.owned) {
    const served = `${subject} is served as class ${JSON.stringify(decision.className)}: ${lowerFirst(decision.message)}`;
    return decision.warning === undefined ? served : `${served} ${decision.warning}`;
  }
  return `${subject} is ignored: ${lowerFirst(decision.message)} ${decision.hint}`;
}

function describeIngress(ingress: IngressLike): string {
  const name = ingress.metadata?.name;
  const namespace = ingress.metadata?.namespace;
  const label = typeof name === 'string' && name !== '' ? name : '(unnamed)';
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}/${label}` : label;
}

// Messages are standalone sentences; after a colon a leading word (not a field path) reads better in lower case.
function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}
