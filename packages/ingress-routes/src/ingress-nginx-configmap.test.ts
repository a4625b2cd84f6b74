import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import {
  DEFAULT_TRANSLATION,
  INGRESS_NGINX_CONFIGMAP_KEYS,
  parseControllerConfigMap,
} from './ingress-nginx-configmap.js';

describe('INGRESS_NGINX_CONFIGMAP_KEYS', () => {
  it('names each key once, sorted, and says of each what is done with it', () => {
    const names = INGRESS_NGINX_CONFIGMAP_KEYS.map((key) => key.name);
    expect(names).toEqual([...new Set(names)].sort());
    for (const key of INGRESS_NGINX_CONFIGMAP_KEYS)
      expect([key.applied, key.unsupported].filter((entry) => entry !== undefined)).toHaveLength(1);
    expect(names.length).toBeGreaterThan(180);
  });
});

describe('parseControllerConfigMap', () => {
  it('reads live keys as annotation defaults and reload keys as nginx.conf settings', () => {
    const { settings, values, problems } = parseControllerConfigMap({
      'ssl-redirect': 'false',
      'proxy-read-timeout': '120',
      'worker-processes': '2',
      'max-worker-connections': '0',
      'worker-shutdown-timeout': '30s',
      'proxy-body-size': '8m',
      'disable-access-log': 'true',
      'upstream-keepalive-timeout': '2m',
      'upstream-keepalive-requests': '100',
      'allow-snippet-annotations': 'false',
      'use-gzip': 'false',
    });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      translation: {
        ...DEFAULT_TRANSLATION,
        annotationDefaults: { sslRedirect: false, readTimeoutSeconds: 120 },
      },
      nginx: {
        workerProcesses: 2,
        workerShutdownTimeoutSeconds: 30,
        proxyBodySize: '8m',
        accessLog: false,
        upstreamKeepalive: { timeoutSeconds: 120, requests: 100 },
        gzip: false,
      },
    });
    expect(Object.keys(values)).toHaveLength(11);
  });

  it('keeps the last valid value of a key whose new value is invalid, and says so', () => {
    const first = parseControllerConfigMap({ 'proxy-read-timeout': '90', 'worker-processes': '2' });
    const second = parseControllerConfigMap(
      { 'proxy-read-timeout': 'soon', 'worker-processes': 'many' },
      first.values,
    );
    expect(second.settings).toEqual({
      translation: {
        ...DEFAULT_TRANSLATION,
        annotationDefaults: { readTimeoutSeconds: 90 },
      },
      nginx: { workerProcesses: 2 },
    });
    expect(second.problems).toEqual([
      expect.objectContaining({
        field: 'data["proxy-read-timeout"]',
        severity: 'error',
        message: expect.stringContaining('the last valid value "90" stays'),
      }),
      expect.objectContaining({ field: 'data["worker-processes"]', severity: 'error' }),
    ]);
    expect(parseControllerConfigMap({ 'proxy-read-timeout': 'soon' }).problems[0]?.message).toContain(
      'the default stays',
    );
  });

  it('reports what it does not apply: protections and raw configuration as errors, the rest as warnings', () => {
    const { problems, settings } = parseControllerConfigMap({
      'http-snippet': 'server { }',
      'whitelist-source-range': '10.0.0.0/8',
      'enable-modsecurity': 'true',
      'disable-ipv6-dns': 'true',
      'no-such-key': 'x',
      'allow-snippet-annotations': 'true',
      'worker-processes': '2\nuser root;',
    });
    expect(settings).toEqual({ translation: DEFAULT_TRANSLATION, nginx: {} });
    expect(problems.map(({ field, severity }) => `${field} ${severity}`)).toEqual([
      'data["allow-snippet-annotations"] error',
      'data["disable-ipv6-dns"] warning',
      'data["enable-modsecurity"] error',
      'data["http-snippet"] error',
      'data["no-such-key"] warning',
      'data["whitelist-source-range"] error',
      'data["worker-processes"] error',
    ]);
  });

  it("reads booleans as Go's strconv.ParseBool, also where not applying a key is what ingress-nginx does", () => {
    const { problems, settings } = parseControllerConfigMap({
      hsts: 'False',
      'disable-access-log': '1',
      'use-gzip': 'T',
      'allow-snippet-annotations': '0',
      'use-geoip': '0',
      'enable-brotli': 'F',
      'strict-validate-path-type': 'TRUE',
      'server-tokens': 'tRuE',
    });
    expect(settings.translation.hsts).toBeUndefined();
    expect(settings.nginx).toEqual({ accessLog: false, gzip: true, http: { brotli: false } });
    expect(problems.map(({ field, severity }) => `${field} ${severity}`)).toEqual([
      'data["server-tokens"] error',
    ]);
  });
});

describe('nginx.conf keys of ingress-nginx', () => {
  it('reads gzip, server-tokens, keep-alive and TLS keys as nginx.conf settings', () => {
    const { settings, problems } = parseControllerConfigMap({
      'use-gzip': 'true',
      'gzip-level': '5',
      'gzip-min-length': '1000',
      'gzip-types': 'text/css  application/json text/css image/svg+xml',
      'server-tokens': 'true',
      'keep-alive': '1m',
      'keep-alive-requests': '100',
      'ssl-protocols': 'TLSv1.3 TLSv1.2',
      'ssl-ciphers': 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:!aNULL',
    });
    expect(problems).toEqual([]);
    expect(settings.nginx).toEqual({
      gzip: true,
      gzipLevel: 5,
      gzipMinLength: 1000,
      gzipTypes: ['text/css', 'application/json', 'image/svg+xml'],
      serverTokens: true,
      keepaliveTimeoutSeconds: 60,
      keepaliveRequests: 100,
      sslProtocols: ['TLSv1.2', 'TLSv1.3'],
      sslCiphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:!aNULL',
    });
    expect(parseControllerConfigMap({ 'gzip-types': '*' }).settings.nginx).toEqual({ gzipTypes: ['*'] });
  });

  it.each([
    ['use-gzip', 'yes'],
    ['gzip-level', '10'],
    ['gzip-min-length', '-1'],
    ['gzip-types', 'text/css; gzip off'],
    ['gzip-types', 'text/"css"'],
    ['gzip-types', 'text/$host'],
    ['gzip-types', 'text'],
    ['gzip-types', ''],
    ['server-tokens', 'build'],
    ['keep-alive', 'forever'],
    ['keep-alive-requests', '0'],
    ['ssl-protocols', 'SSLv3 TLSv1.2'],
    ['ssl-protocols', 'TLSv1.2;'],
    ['ssl-ciphers', "HIGH'; include /etc/passwd"],
    ['ssl-ciphers', 'HIGH {'],
    ['ssl-ciphers', 'NO-SUCH-CIPHER'],
    ['ssl-ciphers', 'A'.repeat(2049)],
  ])('refuses %s: %j, keeping the default', (name, value) => {
    const { settings, problems } = parseControllerConfigMap({ [name]: value });
    expect(settings.nginx).toEqual({});
    expect(problems).toEqual([
      expect.objectContaining({ field: `data["${name}"]`, severity: 'error', value }),
    ]);
  });
});

describe('HSTS keys', () => {
  it("send ingress-nginx's HSTS by default, changed or turned off by the keys", () => {
    expect(parseControllerConfigMap({}).settings.translation.hsts).toEqual({
      maxAgeSeconds: 31_536_000,
      includeSubdomains: true,
      preload: false,
    });
    expect(
      parseControllerConfigMap({
        'hsts-max-age': '600',
        'hsts-include-subdomains': 'false',
        'hsts-preload': 'true',
      }).settings.translation.hsts,
    ).toEqual({ maxAgeSeconds: 600, includeSubdomains: false, preload: true });
    expect(
      parseControllerConfigMap({ hsts: 'false', 'hsts-max-age': '600' }).settings.translation.hsts,
    ).toBeUndefined();
    expect(parseControllerConfigMap({ 'hsts-max-age': 'forever' }).problems[0]?.field).toBe(
      'data["hsts-max-age"]',
    );
  });
});

describe('annotation defaults', () => {
  it('apply to an Ingress without the annotation, and the annotation wins over them', () => {
    const defaults = { sslRedirect: false, readTimeoutSeconds: 120 };
    expect(parseAnnotations({}, undefined, defaults).annotations).toMatchObject(defaults);
    expect(
      parseAnnotations({ 'nginx.ingress.kubernetes.io/proxy-read-timeout': '5' }, undefined, defaults)
        .annotations,
    ).toMatchObject({ sslRedirect: false, readTimeoutSeconds: 5 });
  });
});

describe('load-balance', () => {
  it('sets the default of the annotation, which wins over it, without sharing the default', () => {
    const { translation } = parseControllerConfigMap({ 'load-balance': 'ewma' }).settings;
    const defaults = translation.annotationDefaults;
    expect(defaults).toEqual({ proxy: { loadBalancing: 'ewma' } });
    expect(parseAnnotations({}, undefined, defaults).annotations?.proxy).toEqual({ loadBalancing: 'ewma' });
    const own = parseAnnotations(
      { 'nginx.ingress.kubernetes.io/load-balance': 'round_robin' },
      undefined,
      defaults,
    ).annotations;
    expect(own?.proxy).toEqual({ loadBalancing: 'round-robin' });
    expect(defaults.proxy).toEqual({ loadBalancing: 'ewma' });
    expect(parseControllerConfigMap({ 'load-balance': 'chash' }).problems).toEqual([
      expect.objectContaining({ field: 'data["load-balance"]', severity: 'error' }),
    ]);
  });
});

describe('limit-req-status-code and limit-conn-status-code', () => {
  it('set the statuses of limit-* refusals, 503 by default', () => {
    expect(parseControllerConfigMap({}).settings.translation.limitStatusCodes).toEqual({
      requests: 503,
      connections: 503,
    });
    const { settings, problems } = parseControllerConfigMap({
      'limit-req-status-code': '429',
      'limit-conn-status-code': '200',
    });
    expect(settings.translation.limitStatusCodes).toEqual({ requests: 429, connections: 503 });
    expect(problems).toEqual([expect.objectContaining({ field: 'data["limit-conn-status-code"]' })]);
  });
});

describe('global-allowed-response-headers', () => {
  it('lists the header names custom-headers may set', () => {
    const parse = (value: string) => parseControllerConfigMap({ 'global-allowed-response-headers': value });
    expect(
      parse('X-Frame-Options, Content-Security-Policy,').settings.translation.allowedResponseHeaders,
    ).toEqual(['X-Frame-Options', 'Content-Security-Policy']);
    expect(parse('X-Frame-Options, X Bad').problems).toEqual([
      expect.objectContaining({ message: expect.stringContaining('"X Bad", which is not a header name') }),
    ]);
    expect(parse('X-Frame-Options, X Bad').settings.translation.allowedResponseHeaders).toEqual([]);
  });
});

describe('add-headers and proxy-set-headers', () => {
  const configMaps: Record<string, Record<string, string>> = {
    'ingress/response': { 'X-Frame-Options': 'DENY', 'Content-Length': '0', 'X-Served-By': 'edge' },
    'ingress/request': { 'X-Team': 'web', 'X-Forwarded-For': '1.2.3.4', 'X-Bad': '$remote_addr' },
  };
  const lookup = (namespace: string, name: string) => {
    const data = configMaps[`${namespace}/${name}`];
    return data === undefined ? undefined : { metadata: { namespace, name }, data };
  };

  it('read the headers of the ConfigMaps they name, leaving out and reporting each bad entry', () => {
    const {
      settings,
      problems,
      configMaps: read,
    } = parseControllerConfigMap(
      { 'add-headers': 'ingress/response', 'proxy-set-headers': 'ingress/request' },
      {},
      lookup,
    );
    expect(settings.translation.responseHeaders).toEqual([
      { name: 'X-Frame-Options', value: 'DENY' },
      { name: 'X-Served-By', value: 'edge' },
    ]);
    expect(settings.translation.requestHeaders).toEqual([{ name: 'X-Team', value: 'web' }]);
    expect(read).toEqual(['ingress/request', 'ingress/response']);
    expect(problems.map((problem) => [problem.field, problem.message])).toEqual([
      [
        'data["add-headers"]',
        expect.stringContaining('"Content-Length" is a header that frames the response'),
      ],
      [
        'data["proxy-set-headers"]',
        expect.stringContaining('"X-Forwarded-For" is a header the gateway sets itself'),
      ],
      ['data["proxy-set-headers"]', expect.stringContaining('value of "X-Bad"')],
    ]);
  });

  it('set nothing, with an error, when the ConfigMap is missing or not NAMESPACE/NAME', () => {
    const missing = parseControllerConfigMap({ 'add-headers': 'ingress/none' }, {}, lookup);
    expect(missing.settings.translation.responseHeaders).toEqual([]);
    expect(missing.configMaps).toEqual(['ingress/none']);
    expect(missing.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        message: expect.stringContaining('ingress/none, which is not found'),
      }),
    ]);
    const bare = parseControllerConfigMap({ 'proxy-set-headers': 'request' }, {}, lookup);
    expect(bare.problems[0]?.message).toContain('NAMESPACE/NAME');
    expect(bare.configMaps).toEqual([]);
  });
});

describe('real IP keys', () => {
  it('read booleans, a header name and a CIDR list as nginx.conf settings', () => {
    const { settings, problems } = parseControllerConfigMap({
      'use-forwarded-headers': 'true',
      'enable-real-ip': 'False',
      'compute-full-forwarded-for': 'true',
      'forwarded-for-header': 'X-Client-IP',
      'proxy-real-ip-cidr': '10.0.0.0/8, 2001:DB8::/32,127.0.0.1,10.0.0.0/8',
    });
    expect(problems).toEqual([]);
    expect(settings.nginx).toEqual({
      useForwardedHeaders: true,
      enableRealIp: false,
      computeFullForwardedFor: true,
      forwardedForHeader: 'X-Client-IP',
      proxyRealIpCidr: ['10.0.0.0/8', '127.0.0.1', '2001:db8::/32'],
    });
  });

  it('refuse values nginx.conf cannot take safely, keeping the last valid one', () => {
    const first = parseControllerConfigMap({ 'proxy-real-ip-cidr': '10.0.0.0/8' });
    const { settings, problems } = parseControllerConfigMap(
      {
        'use-forwarded-headers': 'yes',
        'forwarded-for-header': 'X-Forwarded-For;\nuser root',
        'proxy-real-ip-cidr': '10.0.0.0/33',
        'compute-full-forwarded-for': '',
        'enable-real-ip': 'yes',
      },
      first.values,
    );
    expect(settings.nginx).toEqual({ proxyRealIpCidr: ['10.0.0.0/8'] });
    expect(problems.map(({ field, severity }) => `${field} ${severity}`)).toEqual([
      'data["compute-full-forwarded-for"] error',
      'data["enable-real-ip"] error',
      'data["forwarded-for-header"] error',
      'data["proxy-real-ip-cidr"] error',
      'data["use-forwarded-headers"] error',
    ]);
    for (const header of ['proxy_protocol', 'X Real', 'a'.repeat(65), '$remote_addr'])
      expect(parseControllerConfigMap({ 'forwarded-for-header': header }).problems).toHaveLength(1);
    for (const list of ['', ',', 'example.com', '10.0.0.0/8 10.1.0.0/16', 'fe80::1%eth0'])
      expect(parseControllerConfigMap({ 'proxy-real-ip-cidr': list }).problems).toHaveLength(1);
  });
});

describe('parseControllerConfigMap access log keys', () => {
  it('reads the access log keys as nginx.conf settings and the default backend key as a translation default', () => {
    const { settings, problems } = parseControllerConfigMap({
      'disable-access-log': 'false',
      'access-log-path': '/var/log/ingress/access.log',
      'log-format-upstream': '$status [$proxy_upstream_name]',
      'log-format-escape-json': 'true',
      'access-log-params': 'buffer=16k',
      'skip-access-log-urls': '/healthz',
      'enable-access-log-for-default-backend': 'true',
    });
    expect(problems).toEqual([]);
    expect(settings.nginx).toEqual({
      accessLog: true,
      accessLogSettings: {
        path: '/var/log/ingress/access.log',
        streamPath: '/var/log/ingress/access.log',
        format: [{ variable: 'status' }, { text: ' [' }, { field: 'backend' }, { text: ']' }],
        escape: 'json',
        buffer: '16k',
        skipUris: ['/healthz'],
      },
    });
    expect(settings.translation.defaultBackendAccessLog).toBe(true);
    expect(DEFAULT_TRANSLATION.defaultBackendAccessLog).toBe(false);
  });

  it('keeps the last valid format when a new one names a variable it cannot log, naming key and variable', () => {
    const first = parseControllerConfigMap({ 'log-format-upstream': '$status' });
    const second = parseControllerConfigMap(
      { 'log-format-upstream': '$status $geoip_country' },
      first.values,
    );
    expect(second.problems).toEqual([
      {
        field: 'data["log-format-upstream"]',
        message:
          '"log-format-upstream" names "$geoip_country", which is not a variable nginx or ingresskit defines; the last valid value "$status" stays',
        severity: 'error',
        value: '$status $geoip_country',
      },
    ]);
    expect(second.settings.nginx.accessLogSettings).toEqual({ format: [{ variable: 'status' }] });
  });

  it('takes a log format written as a YAML block scalar, dropping its trailing newline', () => {
    const { settings, problems, values } = parseControllerConfigMap({
      'log-format-upstream': '{"ns": "$namespace", "status": $status}\n',
      'log-format-stream': '[$remote_addr] $status\n',
    });
    expect(problems).toEqual([]);
    expect(values['log-format-upstream']).toBe('{"ns": "$namespace", "status": $status}');
    expect(settings.nginx.accessLogSettings).toEqual({
      format: [
        { text: '{"ns": "' },
        { field: 'namespace' },
        { text: '", "status": ' },
        { variable: 'status' },
        { text: '}' },
      ],
      streamFormat: [{ text: '[' }, { variable: 'remote_addr' }, { text: '] ' }, { variable: 'status' }],
    });
    // A newline inside is still refused: nginx would write it into every line.
    expect(parseControllerConfigMap({ 'log-format-upstream': '$status\n$request\n' }).problems).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/must not hold control characters/) }),
    ]);
  });
});
