import { describe, expect, it } from 'vitest';
import { A, ingress, path, secrets } from './testing/fixtures.js';
import { describeRoutes, hostOf } from './testing/assemble.js';
import {
  ANNOTATION_RISKS,
  annotationRiskOf,
  DEFAULT_INGRESS_CHECKS,
  INGRESS_NGINX_ANNOTATIONS,
  parseControllerConfigMap,
  translateIngress,
  type IngressChecks,
} from './index.js';
import { SNIPPET_DIRECTIVES } from './snippet-directives.js';

function checksOf(data: Record<string, string>) {
  const { settings, problems } = parseControllerConfigMap(data);
  return { checks: settings.translation.ingressChecks, problems };
}

function translateWith(
  annotations: Record<string, unknown>,
  checks: Partial<IngressChecks> = {},
  paths = [path('/', 'Prefix', 'app')],
) {
  return translateIngress(
    ingress(
      'web',
      { 'web.test': paths },
      { namespace: 'shop', annotations: annotations as Record<string, string> },
    ),
    secrets(),
    { ingressChecks: { ...DEFAULT_INGRESS_CHECKS, ...checks }, allowedSnippetDirectives: SNIPPET_DIRECTIVES },
  );
}

describe('parseControllerConfigMap Ingress checks', () => {
  it("has ingress-nginx's defaults without the keys: strict paths, no blocked words, risk up to High", () => {
    expect(checksOf({}).checks).toEqual({
      strictPathType: true,
      annotationWordBlocklist: [],
      annotationsRiskLevel: 'High',
    });
  });

  it('reads the keys, the risk level in any case and the words trimmed, without empty or repeated ones', () => {
    const { checks, problems } = checksOf({
      'strict-validate-path-type': 'False',
      'annotation-value-word-blocklist': ' load_module, _by_lua ,,{,},\',",load_module,',
      'annotations-risk-level': 'mEdIuM',
    });
    expect(problems).toEqual([]);
    expect(checks).toEqual({
      strictPathType: false,
      annotationWordBlocklist: ['load_module', '_by_lua', '{', '}', "'", '"'],
      annotationsRiskLevel: 'Medium',
    });
  });

  it('reads an unknown risk level as Low, the strictest, as ingress-nginx does, with an error', () => {
    for (const value of ['Hihg', '', 'critical;', 'Critical\u0000']) {
      // Not even the last valid value stays: a typo must not accept more than the operator meant.
      const { settings, problems } = parseControllerConfigMap(
        { 'annotations-risk-level': value },
        { 'annotations-risk-level': 'Critical' },
      );
      const checks = settings.translation.ingressChecks;
      expect(checks.annotationsRiskLevel).toBe('Low');
      expect(problems.map((problem) => `${problem.field} ${problem.severity}`)).toEqual([
        'data["annotations-risk-level"] error',
      ]);
    }
  });

  it('keeps strict path validation on when its value is not a boolean', () => {
    const { checks, problems } = checksOf({ 'strict-validate-path-type': 'no' });
    expect(checks.strictPathType).toBe(true);
    expect(problems).toEqual([
      expect.objectContaining({ field: 'data["strict-validate-path-type"]', severity: 'error' }),
    ]);
  });

  it('says nothing of values that mean what is done anyway, and warns of the others', () => {
    const quiet = parseControllerConfigMap({
      'allow-cross-namespace-resources': 'false',
      'allow-backend-server-header': 'false',
      'nginx-status-ipv4-whitelist': '127.0.0.1',
      'nginx-status-ipv6-whitelist': '::1',
      'enable-serial-reloads': 'false',
      'debug-connections': '',
    });
    expect(quiet.problems).toEqual([]);
    const loud = parseControllerConfigMap({
      'allow-cross-namespace-resources': 'true',
      'allow-backend-server-header': 'true',
      'nginx-status-ipv4-whitelist': '10.0.0.0/8',
      'debug-connections': '10.0.0.1',
    });
    expect(loud.problems.map((problem) => `${problem.field} ${problem.severity}`)).toEqual([
      'data["allow-backend-server-header"] warning',
      'data["allow-cross-namespace-resources"] warning',
      'data["debug-connections"] warning',
      'data["nginx-status-ipv4-whitelist"] warning',
    ]);
    expect(loud.problems[1]!.message).toMatch(/own namespace only/);
  });
});

describe('strict-validate-path-type', () => {
  const paths = [
    path('/~user', 'Prefix', 'app'),
    path('/a.b_c-d/E9/', 'Exact', 'app'),
    path('/~team', 'ImplementationSpecific', 'app'),
    path('/ok', 'Prefix', 'app'),
  ];

  it('leaves out an Exact or Prefix path outside A-Z a-z 0-9 . _ - /, naming it, and serves the rest', () => {
    const result = translateWith({}, {}, paths);
    expect(result.problems).toEqual([
      expect.objectContaining({
        field: 'spec.rules[0].http.paths[0].path',
        severity: 'error',
        value: '/~user',
        message: expect.stringMatching(
          /^path cannot be used with pathType Prefix: .*strict-validate-path-type/,
        ),
      }),
    ]);
    expect(describeRoutes(hostOf(result, 'web.test'))).toEqual([
      'Exact /a.b_c-d/E9/ -> shop/app:80',
      'PathPrefix /~team -> shop/app:80',
      'PathPrefix /ok -> shop/app:80',
    ]);
  });

  it('serves the path with "false", within the literal path grammar, which still refuses the rest', () => {
    const result = translateWith({}, { strictPathType: false }, [
      ...paths,
      path('/a b', 'Prefix', 'app'),
      path('/a\nb', 'Exact', 'app'),
      path('/(x)', 'Prefix', 'app'),
    ]);
    expect(describeRoutes(hostOf(result, 'web.test'))).toEqual([
      'PathPrefix /~user -> shop/app:80',
      'Exact /a.b_c-d/E9/ -> shop/app:80',
      'PathPrefix /~team -> shop/app:80',
      'PathPrefix /ok -> shop/app:80',
    ]);
    expect(result.problems.map((problem) => problem.field)).toEqual([
      'spec.rules[0].http.paths[4].path',
      'spec.rules[0].http.paths[5].path',
      'spec.rules[0].http.paths[6].path',
    ]);
  });

  it('refuses hostile paths of any length or type without repeating them whole', () => {
    const long = `/${'~'.repeat(100_000)}`;
    const result = translateWith({}, {}, [
      path(long, 'Prefix', 'app'),
      path('/ä', 'Exact', 'app'),
      { path: 42, pathType: 'Prefix', backend: { service: { name: 'app', port: { number: 80 } } } },
    ]);
    expect(result.contribution?.hosts[0]?.routes).toEqual([]);
    expect(result.problems).toHaveLength(3);
    for (const problem of result.problems) expect(JSON.stringify(problem).length).toBeLessThan(2000);
  });
});

describe('annotation-value-word-blocklist', () => {
  it('leaves out an Ingress with a listed word in an annotation value, naming the annotation and word', () => {
    const result = translateWith(
      { [`${A}rewrite-target`]: '/x', [`${A}permanent-redirect`]: 'https://x.test/location' },
      { annotationWordBlocklist: ['root', 'location'] },
    );
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        field: `metadata.annotations["${A}permanent-redirect"]`,
        severity: 'error',
        message: `annotation "${A}permanent-redirect" holds "location", a word of the controller ConfigMap's annotation-value-word-blocklist; the Ingress is not served`,
      }),
    ]);
  });

  it('compares words as written and only in annotations of the prefix', () => {
    const result = translateWith(
      { [`${A}rewrite-target`]: '/Location', 'example.com/note': 'location', [`${A}unknown`]: '' },
      { annotationWordBlocklist: ['location'] },
    );
    expect(result.problems).toEqual([
      expect.objectContaining({ severity: 'warning', field: `metadata.annotations["${A}unknown"]` }),
    ]);
    expect(result.contribution).toBeDefined();
  });

  it('checks annotations ingress-nginx does not know, and survives hostile annotations', () => {
    expect(
      translateWith({ [`${A}made-up`]: 'x{y' }, { annotationWordBlocklist: ['{'] }).contribution,
    ).toBeUndefined();
    const huge = 'a'.repeat(200_000) + '}';
    const blocked = translateWith({ [`${A}rewrite-target`]: huge }, { annotationWordBlocklist: ['}'] });
    expect(blocked.contribution).toBeUndefined();
    expect(JSON.stringify(blocked.problems).length).toBeLessThan(2000);
    const notStrings = translateIngress(
      {
        ...ingress('web', { 'web.test': [path('/', 'Prefix', 'app')] }),
        metadata: { namespace: 'shop', name: 'web', annotations: ['{'] as never },
      },
      secrets(),
      { ingressChecks: { ...DEFAULT_INGRESS_CHECKS, annotationWordBlocklist: ['{', '0'] } },
    );
    expect(
      notStrings.problems.every((problem) => !problem.message.includes('annotation-value-word-blocklist')),
    ).toBe(true);
  });
});

describe('annotations-risk-level', () => {
  it('leaves out an Ingress with an annotation above the level, naming each and its risk', () => {
    const result = translateWith(
      {
        [`${A}server-alias`]: 'www.web.test',
        [`${A}whitelist-source-range`]: '10.0.0.0/8',
        [`${A}proxy-read-timeout`]: '30',
      },
      { annotationsRiskLevel: 'Low' },
    );
    expect(result.contribution).toBeUndefined();
    expect(result.problems.map((problem) => problem.message)).toEqual([
      `annotation "${A}server-alias" is of risk High, above the controller ConfigMap's annotations-risk-level Low; the Ingress is not served`,
      `annotation "${A}whitelist-source-range" is of risk Medium, above the controller ConfigMap's annotations-risk-level Low; the Ingress is not served`,
    ]);
  });

  it('serves annotations up to the level, High by default', () => {
    expect(translateWith({ [`${A}server-alias`]: 'www.web.test' }).contribution).toBeDefined();
    expect(
      translateWith({ [`${A}server-alias`]: 'www.web.test' }, { annotationsRiskLevel: 'Medium' })
        .contribution,
    ).toBeUndefined();
  });

  it('leaves snippets to the snippet rules: allowed directives are served at any level, others refused by them', () => {
    const allowed = translateWith(
      { [`${A}configuration-snippet`]: 'more_set_headers "X-A: 1";' },
      { annotationsRiskLevel: 'Low' },
    );
    expect(allowed.contribution).toBeDefined();
    const refused = translateWith(
      { [`${A}server-snippet`]: 'return 200;' },
      { annotationsRiskLevel: 'Critical' },
    );
    expect(refused.contribution).toBeUndefined();
    expect(refused.problems.map((problem) => problem.message).join('\n')).not.toMatch(
      /annotations-risk-level/,
    );
  });

  it('has a level for every annotation ingress-nginx still declares one for', () => {
    // Catalogued names ingress-nginx no longer parses: no level is declared, none is checked.
    const undeclared = [
      'blacklist-source-range',
      'enable-influxdb',
      'enable-opentracing',
      'influxdb-host',
      'influxdb-measurement',
      'influxdb-port',
      'influxdb-server-name',
      'opentracing-trust-incoming-span',
      'secure-verify-ca-secret',
    ];
    const missing = INGRESS_NGINX_ANNOTATIONS.map((entry) => entry.name).filter(
      (name) => annotationRiskOf(name) === undefined,
    );
    expect(missing.sort()).toEqual(undeclared);
    expect(ANNOTATION_RISKS).toEqual(['Low', 'Medium', 'High', 'Critical']);
    expect(annotationRiskOf('configuration-snippet')).toBe('Critical');
    expect(annotationRiskOf('auth-url')).toBe('High');
    expect(annotationRiskOf('limit-whitelist')).toBe('Low');
  });
});
