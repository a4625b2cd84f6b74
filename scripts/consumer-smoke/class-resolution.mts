// The README's example: which Ingresses this controller owns, and why it ignores the others.
import assert from 'node:assert/strict';
import { createIngressClassResolver, explainDecision } from '@ingresskit/class-resolution';

const ingressClasses = [
  { metadata: { name: 'nginx' }, spec: { controller: 'ingresskit.dev/ingress-controller' } },
];
const ingresses = [
  { metadata: { namespace: 'shop', name: 'web' }, spec: { ingressClassName: 'nginx' } },
  { metadata: { namespace: 'default', name: 'playground' }, spec: {} },
];
const resolver = createIngressClassResolver(ingressClasses, { ingressClass: 'nginx' });
const explanations: string[] = [];
for (const ingress of ingresses) {
  const decision = resolver.resolve(ingress);
  if (!decision.owned) explanations.push(explainDecision(ingress, decision));
}
assert.equal(explanations.length, 1);
assert.match(explanations[0] ?? '', /default\/playground/);
