// The README's pure decision: the status this controller wants on its GatewayClass.
import assert from 'node:assert/strict';
import { evaluateGatewayClass, mergeConditions } from '@ingresskit/gateway-class';

const controllerName = 'ingresskit.dev/gateway-controller';
const gatewayClass = {
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'GatewayClass',
  metadata: { name: 'ingresskit', generation: 2 },
  spec: { controllerName },
};
const context = {
  controllerName,
  now: new Date('2026-01-01T00:00:00Z'),
  customResourceDefinitions: [],
  getParametersObject: () => undefined,
};
const evaluation = evaluateGatewayClass(gatewayClass, context);
assert.ok(evaluation);
assert.equal(evaluation.accepted, true);
assert.equal(evaluation.conditions[0]?.type, 'Accepted');
assert.equal(evaluation.conditions[0]?.observedGeneration, 2);
assert.equal(mergeConditions([], evaluation.conditions).length, evaluation.conditions.length);
const other = { ...gatewayClass, spec: { controllerName: 'example.com/other' } };
assert.equal(evaluateGatewayClass(other, context), null);
