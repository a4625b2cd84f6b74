import { describe, expect, it } from 'vitest';
import {
  createIngressClassResolver,
  explainDecision,
  InvalidClassResolutionConfigError,
  isOwnIngressClass,
  resolveIngressClass,
  type ClassResolutionConfig,
  type IngressLike,
  type NotOwnedReason,
  type OwnedVia,
} from './index.js';
import {
  ingressNginx,
  jsonShape,
  ours,
  shapes,
  traefik,
  type ClassFixture,
  type IngressFixture,
} from '../test/shapes.js';

interface Row {
  title: string;
  classes: ClassFixture[];
  ingress: IngressFixture;
  config?: Partial<ClassResolutionConfig>;
  expected:
    | { owned: true; via: OwnedVia; className: string; warns?: boolean }
    | { owned: false; reason: NotOwnedReason; className?: string; controller?: string };
}

const nginx: ClassFixture = { name: 'nginx', controller: ours, created: '2024-12-04T03:35:34Z' };
const traefikClass: ClassFixture = { name: 'traefik', controller: traefik, created: '2024-12-04T03:37:14Z' };
const asDefault = (fixture: ClassFixture, created = fixture.created): ClassFixture => ({
  ...fixture,
  isDefault: 'true',
  created,
});

/**
 * The decision table, top to bottom: spec.ingressClassName, then the legacy annotation, then (no class at
 * all) the default class and watchIngressWithoutClass. Every row runs against both input shapes.
 */
const rows: Row[] = [
  // 1. spec.ingressClassName decides alone when it is set.
  {
    title: 'owns an Ingress whose spec.ingressClassName names a class of our controller',
    classes: [nginx, traefikClass],
    ingress: { className: 'nginx' },
    expected: { owned: true, via: 'ingressClassName', className: 'nginx' },
  },
  {
    title: 'ignores an Ingress whose class belongs to another controller, naming that controller',
    classes: [nginx, traefikClass],
    ingress: { className: 'traefik' },
    expected: { owned: false, reason: 'class-other-controller', className: 'traefik', controller: traefik },
  },
  {
    title: 'ignores an Ingress whose class was deleted',
    classes: [traefikClass],
    ingress: { className: 'nginx' },
    expected: { owned: false, reason: 'class-not-found', className: 'nginx' },
  },
  {
    title: 'ignores an Ingress whose class name is empty',
    classes: [nginx],
    ingress: { className: '' },
    expected: { owned: false, reason: 'class-name-invalid', className: '' },
  },
  {
    title: 'ignores an Ingress whose class name can never exist',
    classes: [nginx],
    ingress: { className: 'NGINX' },
    expected: { owned: false, reason: 'class-name-invalid', className: 'NGINX' },
  },
  {
    title: 'lets spec.ingressClassName win over an annotation naming another class, with a warning',
    classes: [nginx, traefikClass],
    ingress: { className: 'nginx', annotation: 'traefik' },
    expected: { owned: true, via: 'ingressClassName', className: 'nginx', warns: true },
  },
  {
    title: 'warns about an annotation that repeats spec.ingressClassName',
    classes: [nginx],
    ingress: { className: 'nginx', annotation: 'nginx' },
    expected: { owned: true, via: 'ingressClassName', className: 'nginx', warns: true },
  },
  {
    title: 'does not consult our annotation when spec.ingressClassName names another controller',
    classes: [nginx, traefikClass],
    ingress: { className: 'traefik', annotation: 'nginx' },
    expected: { owned: false, reason: 'class-other-controller', className: 'traefik', controller: traefik },
  },
  {
    title: 'does not consult our annotation when spec.ingressClassName names a missing class',
    classes: [nginx],
    ingress: { className: 'internal', annotation: 'nginx' },
    expected: { owned: false, reason: 'class-not-found', className: 'internal' },
  },
  {
    title: 'ignores the default class when spec.ingressClassName is set',
    classes: [nginx, asDefault(traefikClass)],
    ingress: { className: 'nginx' },
    expected: { owned: true, via: 'ingressClassName', className: 'nginx' },
  },
  {
    title: 'treats a null spec.ingressClassName as unset',
    classes: [asDefault(nginx)],
    ingress: { className: null },
    expected: { owned: true, via: 'default-class', className: 'nginx' },
  },
  // 1, by-name mode: the class named `ingressClass` is ours whatever its controller, but must exist.
  {
    title: 'owns the class named ingressClass in by-name mode even if another controller is named',
    classes: [{ name: 'nginx', controller: ingressNginx }],
    ingress: { className: 'nginx' },
    config: { ingressClassByName: true },
    expected: { owned: true, via: 'ingressClassName', className: 'nginx' },
  },
  {
    title: 'still owns classes of our controller in by-name mode',
    classes: [{ name: 'internal', controller: ours }],
    ingress: { className: 'internal' },
    config: { ingressClassByName: true },
    expected: { owned: true, via: 'ingressClassName', className: 'internal' },
  },
  {
    title: 'ignores a missing class in by-name mode even when its name is ingressClass',
    classes: [],
    ingress: { className: 'nginx' },
    config: { ingressClassByName: true },
    expected: { owned: false, reason: 'class-not-found', className: 'nginx' },
  },
  {
    title: 'ignores a class of another controller with another name in by-name mode',
    classes: [traefikClass],
    ingress: { className: 'traefik' },
    config: { ingressClassByName: true },
    expected: { owned: false, reason: 'class-other-controller', className: 'traefik', controller: traefik },
  },
  {
    title: 'does not own the class named ingressClass by name when by-name mode is off',
    classes: [{ name: 'nginx', controller: ingressNginx }],
    ingress: { className: 'nginx' },
    expected: {
      owned: false,
      reason: 'class-other-controller',
      className: 'nginx',
      controller: ingressNginx,
    },
  },
  // 2. The legacy annotation, when spec.ingressClassName is not set.
  {
    title: 'owns an Ingress whose annotation equals ingressClass',
    classes: [],
    ingress: { annotation: 'nginx' },
    expected: { owned: true, via: 'annotation', className: 'nginx' },
  },
  {
    title: 'warns when the annotation is ours but the IngressClass of that name is not',
    classes: [{ name: 'nginx', controller: ingressNginx }],
    ingress: { annotation: 'nginx' },
    expected: { owned: true, via: 'annotation', className: 'nginx', warns: true },
  },
  {
    title: 'ignores an Ingress whose annotation is empty',
    classes: [nginx],
    ingress: { annotation: '' },
    expected: { owned: false, reason: 'annotation-empty' },
  },
  {
    title: 'ignores an empty annotation even when our class is the default',
    classes: [asDefault(nginx)],
    ingress: { annotation: '' },
    config: { watchIngressWithoutClass: true },
    expected: { owned: false, reason: 'annotation-empty' },
  },
  {
    title: 'ignores an annotation naming a class of another controller, naming that controller',
    classes: [nginx, traefikClass],
    ingress: { annotation: 'traefik' },
    expected: { owned: false, reason: 'annotation-other-class', className: 'traefik', controller: traefik },
  },
  {
    title: 'ignores an annotation naming a class that does not exist',
    classes: [nginx],
    ingress: { annotation: 'haproxy' },
    expected: { owned: false, reason: 'annotation-other-class', className: 'haproxy' },
  },
  {
    title: 'compares the annotation with ingressClass only, not with our IngressClasses',
    classes: [nginx, { name: 'internal', controller: ours }],
    ingress: { annotation: 'internal' },
    expected: { owned: false, reason: 'annotation-other-class', className: 'internal' },
  },
  {
    title: 'uses the annotation before the default class and watchIngressWithoutClass',
    classes: [asDefault(traefikClass)],
    ingress: { annotation: 'nginx' },
    config: { watchIngressWithoutClass: true },
    expected: { owned: true, via: 'annotation', className: 'nginx' },
  },
  // 3. No class at all: the default class, then watchIngressWithoutClass.
  {
    title: 'owns a class-less Ingress when the cluster default class is ours',
    classes: [asDefault(nginx), traefikClass],
    ingress: {},
    expected: { owned: true, via: 'default-class', className: 'nginx' },
  },
  {
    title: 'uses the newest of several default classes',
    classes: [asDefault(nginx), asDefault({ name: 'internal', controller: ours }, '2025-06-01T00:00:00Z')],
    ingress: {},
    expected: { owned: true, via: 'default-class', className: 'internal' },
  },
  {
    title: 'ignores a class-less Ingress when the newest default class is another controller’s',
    classes: [asDefault(nginx), asDefault(traefikClass)],
    ingress: {},
    expected: {
      owned: false,
      reason: 'default-class-other-controller',
      className: 'traefik',
      controller: traefik,
    },
  },
  {
    title: 'breaks a default-class timestamp tie by the lower name (ours first)',
    classes: [asDefault(traefikClass, nginx.created), asDefault(nginx)],
    ingress: {},
    expected: { owned: true, via: 'default-class', className: 'nginx' },
  },
  {
    title: 'breaks a default-class timestamp tie by the lower name (theirs first)',
    classes: [asDefault(nginx), asDefault({ ...traefikClass, name: 'alb' }, nginx.created)],
    ingress: {},
    expected: {
      owned: false,
      reason: 'default-class-other-controller',
      className: 'alb',
      controller: traefik,
    },
  },
  {
    title: 'counts a default class with an invalid timestamp as the oldest',
    classes: [asDefault(nginx, 'yesterday'), asDefault(traefikClass, '2020-01-01T00:00:00Z')],
    ingress: {},
    expected: {
      owned: false,
      reason: 'default-class-other-controller',
      className: 'traefik',
      controller: traefik,
    },
  },
  {
    title: 'owns the default class by name in by-name mode',
    classes: [asDefault({ name: 'nginx', controller: ingressNginx })],
    ingress: {},
    config: { ingressClassByName: true },
    expected: { owned: true, via: 'default-class', className: 'nginx' },
  },
  {
    title: 'owns a class-less Ingress as `_` when watchIngressWithoutClass is on and there is no default',
    classes: [nginx],
    ingress: {},
    config: { watchIngressWithoutClass: true },
    expected: { owned: true, via: 'without-class', className: '_' },
  },
  {
    title: 'owns a class-less Ingress as `_` despite another controller’s default, with a warning',
    classes: [nginx, asDefault(traefikClass)],
    ingress: {},
    config: { watchIngressWithoutClass: true },
    expected: { owned: true, via: 'without-class', className: '_', warns: true },
  },
  {
    title:
      'owns a class-less Ingress as `_` when our default is not honoured but watchIngressWithoutClass is on',
    classes: [asDefault(nginx)],
    ingress: {},
    config: { honorDefaultClass: false, watchIngressWithoutClass: true },
    expected: { owned: true, via: 'without-class', className: '_' },
  },
  {
    title: 'ignores a class-less Ingress when the cluster has no default class (seed 000)',
    classes: [nginx, { name: 'other', controller: traefik }],
    ingress: {},
    expected: { owned: false, reason: 'no-class-no-default' },
  },
  {
    title: 'ignores a class-less Ingress when the cluster has no IngressClass at all',
    classes: [],
    ingress: {},
    expected: { owned: false, reason: 'no-class-no-default' },
  },
  {
    title: 'does not treat is-default-class "True" as a default',
    classes: [{ ...nginx, isDefault: 'True' }],
    ingress: {},
    expected: { owned: false, reason: 'no-class-no-default' },
  },
  {
    title: 'ignores a class-less Ingress when our default class is not honoured',
    classes: [asDefault(nginx)],
    ingress: {},
    config: { honorDefaultClass: false },
    expected: { owned: false, reason: 'default-class-not-honored', className: 'nginx' },
  },
];

// Compile-time completeness: adding a reason without a row here fails the type check.
const everyReason = {
  'class-name-invalid': true,
  'class-not-found': true,
  'class-other-controller': true,
  'annotation-empty': true,
  'annotation-other-class': true,
  'no-class-no-default': true,
  'default-class-other-controller': true,
  'default-class-not-honored': true,
} satisfies Record<NotOwnedReason, true>;
const everyVia = {
  ingressClassName: true,
  annotation: true,
  'default-class': true,
  'without-class': true,
} satisfies Record<OwnedVia, true>;

describe('resolveIngressClass', () => {
  describe.each(shapes)('with $name objects', (shape) => {
    it.each(rows)('$title', ({ classes, ingress, config, expected }) => {
      const ingressObject = shape.ingress(ingress);
      const classObjects = classes.map((fixture) => shape.ingressClass(fixture));
      const decision = resolveIngressClass(ingressObject, classObjects, config);

      if (expected.owned) {
        const { warns = false, ...fields } = expected;
        expect(decision).toEqual({
          ...fields,
          message: expect.any(String),
          ...(warns ? { warning: expect.stringMatching(/\S/) } : {}),
        });
      } else {
        expect(decision).toEqual({ ...expected, message: expect.any(String), hint: expect.any(String) });
      }
      expect(decision.message).toMatch(/\.$/);
      expect(explainDecision(ingressObject, decision)).toContain('Ingress shop/web is ');
    });
  });

  it('covers every reason and every way of owning in the table above', () => {
    const reasons = new Set(rows.flatMap((row) => (row.expected.owned ? [] : [row.expected.reason])));
    const vias = new Set(rows.flatMap((row) => (row.expected.owned ? [row.expected.via] : [])));
    expect([...reasons].sort()).toEqual(Object.keys(everyReason).sort());
    expect([...vias].sort()).toEqual(Object.keys(everyVia).sort());
  });

  it('uses the defaults when no config is given', () => {
    const classes = [jsonShape.ingressClass(nginx)];
    expect(resolveIngressClass(jsonShape.ingress({ className: 'nginx' }), classes)).toMatchObject({
      owned: true,
    });
    expect(resolveIngressClass(jsonShape.ingress({}), classes)).toMatchObject({
      reason: 'no-class-no-default',
    });
  });

  it('throws InvalidClassResolutionConfigError when controllerClass is a class name', () => {
    expect(() => resolveIngressClass(jsonShape.ingress({}), [], { controllerClass: 'nginx' })).toThrow(
      InvalidClassResolutionConfigError,
    );
  });

  it.each<[string, IngressLike]>([
    ['an empty object', {}],
    ['null spec and metadata', { spec: null, metadata: null }],
    ['null annotations', { metadata: { annotations: null }, spec: {} }],
    [
      'a null annotation value',
      { metadata: { annotations: { 'kubernetes.io/ingress.class': null } } } as never,
    ],
    ['a numeric class name', { spec: { ingressClassName: 7 } } as never],
  ])('returns a decision instead of throwing for %s', (_title, ingress) => {
    const decision = resolveIngressClass(ingress, [jsonShape.ingressClass(nginx)]);
    expect(decision.owned).toBe(false);
    expect(explainDecision(ingress, decision)).toMatch(/^Ingress \(unnamed\) is ignored: /);
  });

  it('reads a null annotation value as empty', () => {
    const ingress = { metadata: { annotations: { 'kubernetes.io/ingress.class': null } } } as never;
    expect(resolveIngressClass(ingress, [])).toMatchObject({ reason: 'annotation-empty' });
  });

  it('matches ingress-nginx’s table when configured like it and the default class is not honoured', () => {
    const config = { controllerClass: ingressNginx, honorDefaultClass: false };
    const classes = [
      jsonShape.ingressClass({ name: 'nginx', controller: ingressNginx, isDefault: 'true' }),
      jsonShape.ingressClass({ name: 'traefik', controller: traefik }),
    ];
    const decide = (fixture: IngressFixture, extra: Partial<ClassResolutionConfig> = {}) =>
      resolveIngressClass(jsonShape.ingress(fixture), classes, { ...config, ...extra });
    // Row 1: the lister holds only classes of our controller; a found name is ours, the annotation is not read.
    expect(decide({ className: 'nginx', annotation: 'other' })).toMatchObject({
      owned: true,
      className: 'nginx',
    });
    expect(decide({ className: 'traefik', annotation: 'nginx' })).toMatchObject({ owned: false });
    expect(decide({ className: 'gone' })).toMatchObject({ owned: false });
    // Row 2: the annotation must equal --ingress-class; "" is not ours.
    expect(decide({ annotation: 'nginx' })).toMatchObject({ owned: true, className: 'nginx' });
    expect(decide({ annotation: '' })).toMatchObject({ owned: false });
    // Row 3: --watch-ingress-without-class owns everything else as "_".
    expect(decide({}, { watchIngressWithoutClass: true })).toMatchObject({ owned: true, className: '_' });
    // Row 4: otherwise not ours, even though a default class of ours exists.
    expect(decide({})).toMatchObject({ owned: false });
  });
});

describe('createIngressClassResolver', () => {
  const classes = [nginx, traefikClass, asDefault({ name: 'internal', controller: ours })];

  it.each(shapes)('decides like resolveIngressClass for every table row with $name objects', (shape) => {
    for (const row of rows) {
      const classObjects = row.classes.map((fixture) => shape.ingressClass(fixture));
      const resolver = createIngressClassResolver(classObjects, row.config);
      const ingress = shape.ingress(row.ingress);
      expect(resolver.resolve(ingress)).toEqual(resolveIngressClass(ingress, classObjects, row.config));
    }
  });

  it('returns one frozen decision for Ingresses in the same situation', () => {
    const resolver = createIngressClassResolver(classes.map(jsonShape.ingressClass));
    const first = resolver.resolve(jsonShape.ingress({ name: 'a', className: 'traefik' }));
    const second = resolver.resolve(
      jsonShape.ingress({ name: 'b', namespace: 'other', className: 'traefik' }),
    );
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('keeps deciding from the classes it was created with when the caller’s array changes later', () => {
    const list = [jsonShape.ingressClass(nginx)];
    const resolver = createIngressClassResolver(list);
    list.length = 0;
    expect(resolver.resolve(jsonShape.ingress({ className: 'nginx' }))).toMatchObject({ owned: true });
  });

  it('reports the complete config and the default class name', () => {
    const resolver = createIngressClassResolver(classes.map(jsonShape.ingressClass), {
      ingressClass: 'edge',
    });
    expect(resolver.config).toEqual({
      controllerClass: ours,
      ingressClass: 'edge',
      watchIngressWithoutClass: false,
      ingressClassByName: false,
      honorDefaultClass: true,
    });
    expect(resolver.defaultClassName).toBe('internal');
    expect(createIngressClassResolver([]).defaultClassName).toBeUndefined();
  });

  it('decides correctly for many distinct unknown class names', () => {
    const resolver = createIngressClassResolver([jsonShape.ingressClass(nginx)]);
    for (let i = 0; i < 5000; i++) {
      expect(resolver.resolve({ spec: { ingressClassName: `gone-${i}` } })).toMatchObject({
        reason: 'class-not-found',
        className: `gone-${i}`,
      });
    }
    expect(resolver.resolve({ spec: { ingressClassName: 'nginx' } })).toMatchObject({ owned: true });
  });

  it('lets the first of two classes with the same name win', () => {
    const resolver = createIngressClassResolver([
      jsonShape.ingressClass(nginx),
      jsonShape.ingressClass({ name: 'nginx', controller: traefik }),
    ]);
    expect(resolver.resolve({ spec: { ingressClassName: 'nginx' } })).toMatchObject({ owned: true });
  });
});

describe('isOwnIngressClass', () => {
  it.each(shapes)('matches by controller, and by name only in by-name mode, with $name objects', (shape) => {
    const byOtherController = shape.ingressClass({ name: 'nginx', controller: ingressNginx });
    expect(isOwnIngressClass(shape.ingressClass(nginx))).toBe(true);
    expect(isOwnIngressClass(shape.ingressClass(traefikClass))).toBe(false);
    expect(isOwnIngressClass(byOtherController)).toBe(false);
    expect(isOwnIngressClass(byOtherController, { ingressClassByName: true })).toBe(true);
    expect(isOwnIngressClass(shape.ingressClass({ name: 'x' }))).toBe(false);
  });
});
