import { resolveIngressClass, type NotOwnedReason } from '@ingresskit/class-resolution';
import { describe, expect, it } from 'vitest';
import { isIgnoreReasonReported } from './event-policy.js';

const classes = [
  { metadata: { name: 'nginx' }, spec: { controller: 'ingresskit.dev/ingress-controller' } },
  { metadata: { name: 'traefik' }, spec: { controller: 'traefik.io/ingress-controller' } },
];

function reasonFor(spec: { ingressClassName?: string }, annotations?: Record<string, string>): string {
  const decision = resolveIngressClass(
    { metadata: { name: 'app', namespace: 'shop', ...(annotations ? { annotations } : {}) }, spec },
    classes,
  );
  return decision.owned ? 'owned' : `${decision.reason}:${isIgnoreReasonReported(decision.reason)}`;
}

describe('isIgnoreReasonReported', () => {
  it.each<NotOwnedReason>([
    'class-not-found',
    'class-name-invalid',
    'annotation-empty',
    'no-class-no-default',
    'default-class-not-honored',
  ])('reports an Ingress that may be meant for this controller or for none when it is %s', (reason) => {
    expect(isIgnoreReasonReported(reason)).toBe(true);
  });

  it.each<NotOwnedReason>([
    'class-other-controller',
    'annotation-other-class',
    'default-class-other-controller',
  ])('stays quiet about an Ingress of another controller when it is %s', (reason) => {
    expect(isIgnoreReasonReported(reason)).toBe(false);
  });

  it('reports a misspelt or missing class but not the class or annotation of another controller when resolved', () => {
    expect(reasonFor({ ingressClassName: 'ngnix' })).toBe('class-not-found:true');
    expect(reasonFor({})).toBe('no-class-no-default:true');
    expect(reasonFor({}, { 'kubernetes.io/ingress.class': '' })).toBe('annotation-empty:true');
    expect(reasonFor({ ingressClassName: 'traefik' })).toBe('class-other-controller:false');
    expect(reasonFor({}, { 'kubernetes.io/ingress.class': 'traefik' })).toBe('annotation-other-class:false');
    expect(reasonFor({ ingressClassName: 'nginx' })).toBe('owned');
  });
});
