import { describe, expect, it } from 'vitest';
import {
  createIngressClassResolver,
  explainDecision,
  resolveIngressClass,
  type ClassResolutionConfig,
  type IngressClassLike,
  type IngressLike,
} from './index.js';
import { ingressNginx, jsonShape, ours, shapes, traefik, type IngressFixture } from '../test/shapes.js';

// Seed 000: ingress-nginx's class "nginx" is not the default, traefik's class is; then traefik goes away.
const seedClasses = (withTraefik: boolean): IngressClassLike[] => [
  jsonShape.ingressClass({ name: 'nginx', controller: ours, created: '2024-12-04T03:35:34Z' }),
  ...(withTraefik
    ? [
        jsonShape.ingressClass({
          name: 'traefik',
          controller: traefik,
          isDefault: 'true',
          created: '2024-12-04T03:37:14Z',
        }),
      ]
    : []),
];
const playground = { metadata: { name: 'playground', namespace: 'default' }, spec: { rules: [] } };

function explain(
  ingress: IngressFixture,
  classes: IngressClassLike[],
  config: Partial<ClassResolutionConfig> = {},
): string {
  const object = jsonShape.ingress(ingress);
  return explainDecision(object, resolveIngressClass(object, classes, config));
}

/** Sentence count, ignoring dots inside names such as `ingresskit.dev` or `is-default-class: "true"`. */
function countSentences(text: string): number {
  return text.split(/(?<=[.])\s+(?=[A-Z])/).length;
}

describe('explainDecision', () => {
  it('explains seed 000: no class and no default IngressClass, with both fixes', () => {
    const decision = resolveIngressClass(playground, seedClasses(false));
    expect(explainDecision(playground, decision)).toBe(
      'Ingress default/playground is ignored: neither spec.ingressClassName nor the kubernetes.io/ingress.class ' +
        'annotation is set, and the cluster has no default IngressClass to assign it to a controller. ' +
        'Set spec.ingressClassName: nginx, or mark IngressClass "nginx" as the cluster default with the ' +
        'annotation ingressclass.kubernetes.io/is-default-class: "true".',
    );
  });

  it('explains seed 000 with traefik as the default: the default belongs to another controller', () => {
    const text = explainDecision(playground, resolveIngressClass(playground, seedClasses(true)));
    expect(text).toContain('Ingress default/playground is ignored');
    expect(text).toContain(
      'default IngressClass "traefik" belongs to controller "traefik.io/ingress-controller"',
    );
    expect(text).toContain('set spec.ingressClassName: nginx');
  });

  it('tells how to create our class when none exists yet', () => {
    const text = explain({}, []);
    expect(text).toContain(
      'Create IngressClass "nginx" with spec.controller: ingresskit.dev/ingress-controller and set spec.ingressClassName: nginx',
    );
  });

  it('does not suggest taking over a class name another controller already uses', () => {
    const text = explain({}, [jsonShape.ingressClass({ name: 'nginx', controller: ingressNginx })]);
    expect(text).toContain('Create an IngressClass with spec.controller: ingresskit.dev/ingress-controller');
    expect(text).not.toContain('Create IngressClass "nginx"');
  });

  it('points at a near miss of the default-class annotation', () => {
    const text = explain({}, [
      jsonShape.ingressClass({ name: 'nginx', controller: ours, isDefault: 'True' }),
    ]);
    expect(text).toContain(
      'has ingressclass.kubernetes.io/is-default-class: "True", but only the exact string "true" counts',
    );
  });

  it('points at an unquoted YAML boolean in the default-class annotation', () => {
    const parsed = {
      metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': true } },
      spec: { controller: ours },
    } as never;
    expect(explain({}, [parsed])).toContain(
      'has ingressclass.kubernetes.io/is-default-class: true, but only the exact string "true" counts',
    );
  });

  it('does not offer the default-class fix when honorDefaultClass is off', () => {
    const text = explain({}, seedClasses(false), { honorDefaultClass: false });
    expect(text).toContain('Set spec.ingressClassName: nginx; marking a class default would not help');
  });

  it('explains a deleted class and offers to recreate it or switch to ours', () => {
    const text = explain({ className: 'internal' }, seedClasses(false));
    expect(text).toBe(
      'Ingress shop/web is ignored: spec.ingressClassName is "internal", but no IngressClass of that name exists: ' +
        'it was deleted, or has not been created yet. Create IngressClass "internal" with spec.controller: ' +
        'ingresskit.dev/ingress-controller, or set spec.ingressClassName: nginx.',
    );
  });

  it('names the controller that owns the class when it is not ours', () => {
    const text = explain({ className: 'traefik' }, seedClasses(true));
    expect(text).toContain('"traefik", an IngressClass of controller "traefik.io/ingress-controller"');
    expect(text).toContain('otherwise it is for "traefik.io/ingress-controller" to serve');
  });

  it('says the annotation is overridden when spec.ingressClassName names another controller’s class', () => {
    const text = explain({ className: 'traefik', annotation: 'nginx' }, seedClasses(true));
    expect(text).toContain(
      'remove the kubernetes.io/ingress.class annotation, which spec.ingressClassName overrides',
    );
  });

  it('says an empty annotation names no class and blocks the default', () => {
    const text = explain({ annotation: '' }, seedClasses(false));
    expect(text).toContain('annotation is empty, which names no class');
    expect(text).toContain('keeps the API server from assigning a default IngressClass');
    expect(text).toContain(
      'Set spec.ingressClassName: nginx and remove the empty kubernetes.io/ingress.class annotation.',
    );
  });

  it('says the annotation is not looked up as an IngressClass', () => {
    const classes = [jsonShape.ingressClass({ name: 'internal', controller: ours })];
    expect(explain({ annotation: 'internal' }, classes)).toContain(
      'Set spec.ingressClassName: internal and remove the kubernetes.io/ingress.class annotation.',
    );
  });

  it('explains an owned Ingress and the class it is served as', () => {
    expect(explain({ className: 'nginx' }, seedClasses(false))).toBe(
      'Ingress shop/web is served as class "nginx": spec.ingressClassName is "nginx", an IngressClass of ' +
        'controller "ingresskit.dev/ingress-controller".',
    );
  });

  it('adds the warning to an owned Ingress', () => {
    const text = explain({ annotation: 'nginx' }, [
      jsonShape.ingressClass({ name: 'nginx', controller: ingressNginx }),
    ]);
    expect(text).toContain('served as class "nginx"');
    expect(text).toContain(
      'IngressClass "nginx" belongs to controller "k8s.io/ingress-nginx", which may serve this Ingress too',
    );
  });

  it('makes control characters and spaces in user values visible', () => {
    const text = explain({ annotation: 'nginx\n ' }, seedClasses(false));
    expect(text).toContain('"nginx\\n "');
    expect(text).not.toContain('\n');
  });

  it.each<[string, IngressLike, string]>([
    [
      'names an Ingress without namespace by its name',
      { metadata: { name: 'web' } },
      'Ingress web is ignored',
    ],
    [
      'names an Ingress without a name as unnamed',
      { metadata: { namespace: 'shop' } },
      'Ingress shop/(unnamed) is ignored',
    ],
  ])('%s', (_title, ingress, expected) => {
    expect(explainDecision(ingress, resolveIngressClass(ingress, []))).toContain(expected);
  });

  it.each(shapes)('writes the same text for $name objects', (shape) => {
    const classes = [
      shape.ingressClass({
        name: 'traefik',
        controller: traefik,
        isDefault: 'true',
        created: '2024-12-04T03:37:14Z',
      }),
    ];
    const ingress = shape.ingress({ name: 'playground', namespace: 'default' });
    const jsonIngress = jsonShape.ingress({ name: 'playground', namespace: 'default' });
    expect(explainDecision(ingress, resolveIngressClass(ingress, classes))).toBe(
      explainDecision(jsonIngress, resolveIngressClass(jsonIngress, seedClasses(true).slice(1))),
    );
  });

  it('writes one or two sentences for every situation, as kept in testdata/explanations.txt', async () => {
    const situations: [string, IngressFixture, IngressClassLike[], Partial<ClassResolutionConfig>?][] = [
      ['seed 000', {}, seedClasses(false)],
      ['seed 000, no class of ours yet', {}, []],
      [
        'seed 000, our class name taken',
        {},
        [jsonShape.ingressClass({ name: 'nginx', controller: ingressNginx })],
      ],
      [
        'seed 000, default marked "True"',
        {},
        [jsonShape.ingressClass({ name: 'nginx', controller: ours, isDefault: 'True' })],
      ],
      ['seed 000, honorDefaultClass off', {}, seedClasses(false), { honorDefaultClass: false }],
      ['no class, default is traefik', {}, seedClasses(true)],
      [
        'no class, our default not honoured',
        {},
        [jsonShape.ingressClass({ name: 'nginx', controller: ours, isDefault: 'true' })],
        { honorDefaultClass: false },
      ],
      ['class of another controller', { className: 'traefik' }, seedClasses(true)],
      [
        'class of another controller, our annotation',
        { className: 'traefik', annotation: 'nginx' },
        seedClasses(true),
      ],
      [
        'class of another controller, by-name mode',
        { className: 'traefik' },
        seedClasses(true),
        { ingressClassByName: true },
      ],
      ['deleted class', { className: 'internal' }, seedClasses(false)],
      ['deleted class, no class of ours', { className: 'nginx' }, []],
      ['empty class name', { className: '' }, seedClasses(false)],
      ['invalid class name', { className: 'NGINX' }, seedClasses(false)],
      ['empty annotation', { annotation: '' }, seedClasses(false)],
      ['annotation of another controller', { annotation: 'traefik' }, seedClasses(true)],
      ['annotation of an unknown class', { annotation: 'haproxy' }, seedClasses(false)],
      [
        'annotation naming one of our classes',
        { annotation: 'internal' },
        [jsonShape.ingressClass({ name: 'internal', controller: ours })],
      ],
      ['owned by class', { className: 'nginx' }, seedClasses(false)],
      ['owned by class, other annotation', { className: 'nginx', annotation: 'traefik' }, seedClasses(true)],
      ['owned by class, same annotation', { className: 'nginx', annotation: 'nginx' }, seedClasses(false)],
      [
        'owned by name',
        { className: 'nginx' },
        [jsonShape.ingressClass({ name: 'nginx', controller: ingressNginx })],
        { ingressClassByName: true },
      ],
      ['owned by annotation', { annotation: 'nginx' }, []],
      [
        'owned by annotation, class nginx is ingress-nginx’s',
        { annotation: 'nginx' },
        [jsonShape.ingressClass({ name: 'nginx', controller: ingressNginx })],
      ],
      [
        'owned by default class',
        {},
        [jsonShape.ingressClass({ name: 'nginx', controller: ours, isDefault: 'true' })],
      ],
      ['owned without class', {}, [], { watchIngressWithoutClass: true }],
      ['owned without class, default is traefik', {}, seedClasses(true), { watchIngressWithoutClass: true }],
    ];
    const lines: string[] = [];
    for (const [title, fixture, classes, config] of situations) {
      const ingress = jsonShape.ingress({ name: 'playground', namespace: 'default', ...fixture });
      const decision = createIngressClassResolver(classes, config).resolve(ingress);
      const text = explainDecision(ingress, decision);
      expect(countSentences(text), text).toBeLessThanOrEqual(2);
      lines.push(`# ${title} (${decision.owned ? `owned via ${decision.via}` : decision.reason})`, text, '');
    }
    await expect(lines.join('\n')).toMatchFileSnapshot('../testdata/explanations.txt');
  });
});
