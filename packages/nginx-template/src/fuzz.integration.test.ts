/**
 * Fuzz: hostile hosts, paths, names and annotation values go through buildConfiguration and
 * renderNginxConf. Every rendered config must pass `nginx -t`, hold exactly the directives (in
 * the same contexts) and unquoted tokens a clean, feature-complete render holds, have one server
 * block per model server and one location block per model location, and keep serving the good
 * Ingress that sits next to the hostile ones. Deterministic: a seeded generator, no randomness.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildConfiguration,
  renderNginxConf,
  type BuildResult,
  type ConfigurationInput,
  type IngressLike,
  type RenderOptions,
} from './index.js';
import { A, endpointSlice, externalService, ingress, path, service, tlsSecret } from './testing/fixtures.js';
import {
  countDirectives,
  listDirectivePaths,
  listUnquotedTokens,
  parseNginxConf,
} from './testing/nginx-conf-parser.js';
import { createNginxPrefix, testNginxConf, type NginxPrefix } from './testing/nginx-process.js';

/** mulberry32: a tiny seeded generator so every run feeds the same strings. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS = [
  '"',
  "'",
  '{',
  '}',
  ';',
  '\n',
  '\r',
  '\t',
  ' ',
  '$',
  '${x}',
  '$host',
  '\u0000',
  '#',
  '\\',
  '\\"',
  '`',
  'é',
  '😀',
  '\u202e',
  '\u00a0',
  '*',
  '~',
  '(',
  ')',
  '|',
  '^',
  '[',
  ']',
  '?',
  '%',
  '&',
  '<',
  '>',
  '@',
  ':',
  ',',
  '=',
  '!',
  '/',
  '.',
  '-',
  '_',
  '{{',
  '}}',
  '{{{x}}}',
  'load_module',
  'ssl_engine',
  '_by_lua',
  'server',
  'location',
  'return',
  'include',
  '..',
  '//',
];

const PAYLOADS = [
  'x"; } server { listen 9999; } #',
  '/a;ssl_engine /tmp/x.so;',
  '";load_module /tmp/evil.so;#',
  '\nallow all;\n',
  '/ok\n}\nserver { listen 1; }\n',
  '$(reboot)',
  '{{evil}}',
  '{{{evil}}}',
  '/a" { return 200 pwned; } location "/b',
  "/a' { return 200; } location '/b",
  '/(?{evil})',
  '/(?i)x',
  '/x\\"',
  '/x\\n',
  '/x\\',
  '/\u0000',
  '/a#b',
  '/a b',
  '/' + 'a'.repeat(3000),
  'a'.repeat(70) + '.example.com',
  '*.example.com;',
  'exa\nmple.com',
  '10.0.0.0/8\ndeny all',
  '0.0.0.0/0;allow all',
  '60s; proxy_pass http://evil',
  'HTTP; include /etc/passwd',
  'internal.example.com"; set $x "',
  '/$2;',
  '/${1}',
  '/etc/passwd',
  '/var/run/secrets/kubernetes.io',
  'content_by_lua_block { os.execute("id") }',
];

function createHostile(random: () => number): string {
  if (random() < 0.3) return PAYLOADS[Math.floor(random() * PAYLOADS.length)]!;
  const parts: string[] = [random() < 0.5 ? '/' : ''];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    parts.push(
      random() < 0.6
        ? ATOMS[Math.floor(random() * ATOMS.length)]!
        : 'abc'.slice(0, 1 + Math.floor(random() * 3)),
    );
  }
  return parts.join('');
}

type Field =
  | 'namespace'
  | 'name'
  | 'host'
  | 'tlsHost'
  | 'prefixPath'
  | 'exactPath'
  | 'implPath'
  | 'regexPath'
  | 'serviceName'
  | 'portName'
  | 'secretName'
  | 'annotationKey'
  | `annotation:${string}`;

const ANNOTATIONS = [
  'ssl-redirect',
  'force-ssl-redirect',
  'rewrite-target',
  'proxy-connect-timeout',
  'proxy-read-timeout',
  'proxy-send-timeout',
  'proxy-body-size',
  'backend-protocol',
  'use-regex',
  'whitelist-source-range',
  'allowlist-source-range',
  'upstream-vhost',
];

const FIELDS: Field[] = [
  'namespace',
  'name',
  'host',
  'tlsHost',
  'prefixPath',
  'exactPath',
  'implPath',
  'regexPath',
  'serviceName',
  'portName',
  'secretName',
  'annotationKey',
  ...ANNOTATIONS.map((name) => `annotation:${name}` as const),
];

/** One Ingress with exactly one hostile field; the rest is valid. */
function createHostileIngress(index: number, field: Field, value: string): IngressLike {
  const host = field === 'host' ? value : `h${index}.example.com`;
  const pathType =
    field === 'exactPath'
      ? 'Exact'
      : field === 'implPath' || field === 'regexPath'
        ? 'ImplementationSpecific'
        : 'Prefix';
  const pathValue = ['prefixPath', 'exactPath', 'implPath', 'regexPath'].includes(field) ? value : '/p';
  const annotations: Record<string, string> = {};
  if (field === 'regexPath') annotations[`${A}use-regex`] = 'true';
  if (field.startsWith('annotation:')) annotations[`${A}${field.slice('annotation:'.length)}`] = value;
  if (field === 'annotationKey') annotations[`${A}${value}`] = 'true';
  const made = ingress(
    field === 'name' ? value : `fuzz-${index}`,
    {
      [host]: [
        path(pathValue, pathType, field === 'serviceName' ? value : 'app', field === 'portName' ? value : 80),
      ],
    },
    {
      namespace: field === 'namespace' ? value : 'default',
      annotations,
      tls: [
        { hosts: [field === 'tlsHost' ? value : host], secretName: field === 'secretName' ? value : 'cert' },
      ],
    },
  );
  return made;
}

const renderOptions: RenderOptions = {
  httpPort: 8080,
  httpsPort: 8443,
  statusPort: 10999,
  resolvers: ['127.0.0.53'],
};
const prefixes: NginxPrefix[] = [];

afterAll(async () => {
  for (const prefix of prefixes) await prefix.remove();
});

function baseInput(ingresses: IngressLike[]): ConfigurationInput {
  return {
    ingresses: [ingress('good', { 'good.example.com': [path('/', 'Prefix', 'app')] }), ...ingresses],
    services: [service('app'), externalService('ext', 'api.example.org')],
    endpointSlices: [endpointSlice('app', 8080, ['10.0.0.1'])],
    secrets: [tlsSecret('cert', 'secure')],
    defaultBackend: { namespace: 'default', name: 'app', port: 80 },
  };
}

/** A render using every template feature, hostile-free: the vocabulary any render may use. */
function renderKitchenSink(): { conf: string; result: BuildResult } {
  const result = buildConfiguration({
    ...baseInput([
      ingress(
        'all',
        {
          'secure.example.com': [
            path('/a', 'Prefix', 'app'),
            path('/b', 'Exact', 'app'),
            path('/c', 'ImplementationSpecific', 'app'),
          ],
        },
        {
          tls: [{ hosts: ['secure.example.com'], secretName: 'cert' }],
          annotations: {
            [`${A}rewrite-target`]: '/x',
            [`${A}proxy-connect-timeout`]: '1',
            [`${A}proxy-read-timeout`]: '2',
            [`${A}proxy-send-timeout`]: '3',
            [`${A}proxy-body-size`]: '4m',
            [`${A}whitelist-source-range`]: '10.0.0.0/8',
            [`${A}upstream-vhost`]: 'internal.example.com',
            [`${A}force-ssl-redirect`]: 'true',
          },
        },
      ),
      ingress(
        'regex',
        { '*.example.com': [path('/r(/|$)(.*)', 'ImplementationSpecific', 'app')] },
        {
          annotations: {
            [`${A}use-regex`]: 'true',
            [`${A}rewrite-target`]: '/$2',
            [`${A}backend-protocol`]: 'GRPC',
            [`${A}proxy-read-timeout`]: '5',
          },
        },
      ),
      ingress(
        'https',
        { 'tls.example.com': [path('/', 'Prefix', 'app')] },
        { annotations: { [`${A}backend-protocol`]: 'HTTPS' } },
      ),
      ingress('ext', { 'ext.example.com': [path('/', 'Prefix', 'ext', 443)] }),
      ingress('none', { 'none.example.com': [path('/', 'Exact', 'app')] }),
    ]),
    defaultBackend: undefined,
  });
  expect(result.problems).toEqual([]);
  return { conf: renderNginxConf(result.configuration, renderOptions), result };
}

function normalizeToken(token: string): string {
  return token.replace(/[0-9]+/g, '0');
}

const reference = (() => {
  const tree = parseNginxConf(renderKitchenSink().conf);
  return {
    directives: listDirectivePaths(tree),
    tokens: new Set(listUnquotedTokens(tree).map(normalizeToken)),
  };
})();

// Characters no accepted value of a rendered field may hold; a value with one must be refused.
// Regex paths may use braces (quantifiers) and backslash escapes, nothing else on this list.
// eslint-disable-next-line no-control-regex -- control characters are part of the point
const NEVER_RENDERED = /["'{};\s\u0000-\u001f\u007f#`\\]|[^\u0000-\u007f]/;
// eslint-disable-next-line no-control-regex -- as above
const NEVER_IN_REGEX = /["';\s\u0000-\u001f\u007f#`]|[^\u0000-\u007f]/;

async function checkBatch(batch: { field: Field; value: string }[], seedLabel: string): Promise<void> {
  const ingresses = batch.map(({ field, value }, index) => createHostileIngress(index, field, value));
  let result: BuildResult | undefined;
  expect(() => (result = buildConfiguration(baseInput(ingresses)))).not.toThrow();
  const { configuration, problems } = result!;
  expect(configuration.servers.map((server) => server.host)).toContain('good.example.com');
  expect(problems.filter((problem) => problem.object.name === 'good')).toEqual([]);

  batch.forEach(({ field, value }, index) => {
    const rendered = field !== 'annotationKey' && field !== 'tlsHost';
    if (!rendered || !(field === 'regexPath' ? NEVER_IN_REGEX : NEVER_RENDERED).test(value)) return;
    const name = field === 'name' ? value : `fuzz-${index}`;
    const refused = problems.some((problem) => problem.object.name === name && problem.severity === 'error');
    expect(refused, `${seedLabel}: ${field} = ${JSON.stringify(value)} was not refused`).toBe(true);
  });

  const conf = renderNginxConf(configuration, renderOptions);
  const tree = parseNginxConf(conf);
  const directives = [...listDirectivePaths(tree)].filter(
    (directive) => !reference.directives.has(directive),
  );
  expect(directives, `${seedLabel}: directives the template never writes`).toEqual([]);
  const tokens = listUnquotedTokens(tree).filter((token) => !reference.tokens.has(normalizeToken(token)));
  expect(tokens, `${seedLabel}: unquoted tokens the template never writes`).toEqual([]);
  // Server blocks: one per model server, the catch-all and the status server.
  expect(countDirectives(tree, 'server', true)).toBe(configuration.servers.length + 2);
  const locations = [configuration.defaultServer, ...configuration.servers].reduce(
    (sum, server) => sum + server.locations.length,
    0,
  );
  expect(countDirectives(tree, 'location', true)).toBe(locations + 4);

  const prefix = await createNginxPrefix(conf, configuration.certificates);
  prefixes.push(prefix);
  const outcome = await testNginxConf(prefix);
  expect(outcome.ok, `${seedLabel}: nginx -t failed:\n${outcome.output}`).toBe(true);
}

describe('buildConfiguration + renderNginxConf (fuzz, nginx -t)', () => {
  it('renders a feature-complete clean configuration that nginx accepts', async () => {
    const { conf, result } = renderKitchenSink();
    const prefix = await createNginxPrefix(conf, result.configuration.certificates);
    prefixes.push(prefix);
    const outcome = await testNginxConf(prefix);
    expect(outcome.ok, outcome.output).toBe(true);
    for (const feature of ['ssl_certificate', 'grpc_pass', 'rewrite', 'allow', 'resolver', 'if', 'return']) {
      expect(reference.directives, feature).toContain(
        [...reference.directives].find((directive) => directive.endsWith(`/${feature}`)) ??
          `missing ${feature}`,
      );
    }
  });

  it('puts every fixed payload into every field without changing the config structure', async () => {
    for (const [fieldIndex, field] of FIELDS.entries()) {
      await checkBatch(
        PAYLOADS.map((value) => ({ field, value })),
        `payloads in ${field} (#${fieldIndex})`,
      );
    }
  });

  it.each([1, 2, 3, 4, 5, 6])('survives 120 generated hostile values (seed %i)', async (seed) => {
    const random = createRandom(seed);
    const batch = Array.from({ length: 120 }, () => ({
      field: FIELDS[Math.floor(random() * FIELDS.length)]!,
      value: createHostile(random),
    }));
    await checkBatch(batch, `seed ${seed}`);
  });
});
