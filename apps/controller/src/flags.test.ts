import { describe, expect, it } from 'vitest';
import { resolveControllerConfig, storeKindsOf, storeNamespaceScopeOf } from './config.js';
import { FlagError } from './errors.js';
import {
  defaultFlags,
  envVarOf,
  formatRunFlagsHelp,
  parseCommandLine,
  parseDurationSeconds,
  parseRunFlags,
  runFlagNames,
} from './flags.js';

describe('parseRunFlags', () => {
  it('returns the defaults when neither flags nor environment are given', () => {
    expect(parseRunFlags([], {})).toEqual(defaultFlags());
  });

  it('takes a value from the environment when the flag is not on the command line', () => {
    const flags = parseRunFlags([], { INGRESSKIT_WATCH_NAMESPACE: 'team-a', INGRESSKIT_HTTP_PORT: '8080' });
    expect(flags['watch-namespace']).toBe('team-a');
    expect(flags['http-port']).toBe(8080);
  });

  it('prefers the command line over the environment when both are set', () => {
    const flags = parseRunFlags(['--http-port=9090', '--update-status=false'], {
      INGRESSKIT_HTTP_PORT: '8080',
      INGRESSKIT_UPDATE_STATUS: 'true',
    });
    expect(flags['http-port']).toBe(9090);
    expect(flags['update-status']).toBe(false);
  });

  it('ignores an empty environment variable when falling back to the default', () => {
    expect(parseRunFlags([], { INGRESSKIT_INGRESS_CLASS: '' })['ingress-class']).toBe('nginx');
  });

  it('reads --name value, --name=value and a bare boolean when each form is used', () => {
    const flags = parseRunFlags(
      ['--ingress-class', 'public', '--election-id=my-lease', '--enable-ingress-checksum'],
      {},
    );
    expect(flags['ingress-class']).toBe('public');
    expect(flags['election-id']).toBe('my-lease');
    expect(flags['enable-ingress-checksum']).toBe(true);
  });

  it('throws a FlagError naming the flag when the flag is unknown', () => {
    expect(() => parseRunFlags(['--no-such-flag'], {})).toThrow(FlagError);
    expect(() => parseRunFlags(['--no-such-flag'], {})).toThrow(/--no-such-flag/);
  });

  it('throws a FlagError naming the source when a value does not parse', () => {
    expect(() => parseRunFlags(['--http-port=70000'], {})).toThrow(/--http-port must be a port number/);
    expect(() => parseRunFlags([], { INGRESSKIT_SYNC_RATE_LIMIT: 'fast' })).toThrow(
      /\$INGRESSKIT_SYNC_RATE_LIMIT must be a number/,
    );
    expect(() => parseRunFlags(['--update-status=maybe'], {})).toThrow(
      /--update-status must be true or false/,
    );
    expect(() => parseRunFlags(['--log-level=loud'], {})).toThrow(/--log-level must be one of/);
  });

  it('throws a FlagError when a value-taking flag is last or followed by another flag', () => {
    expect(() => parseRunFlags(['--kubeconfig'], {})).toThrow(/--kubeconfig needs a value/);
    expect(() => parseRunFlags(['--kubeconfig', '--http-port=1'], {})).toThrow(/--kubeconfig needs a value/);
  });

  it('throws a FlagError when a positional argument is given to run', () => {
    expect(() => parseRunFlags(['extra'], {})).toThrow(/unexpected argument "extra"/);
  });
});

describe('parseCommandLine', () => {
  it('rejects a flag of another command when the command does not declare it', () => {
    expect(() =>
      parseCommandLine(['--http-port=1'], {}, { command: 'ingresskit explain', flags: ['kubeconfig'] }),
    ).toThrow(/unknown flag --http-port; see 'ingresskit explain --help'/);
  });

  it('reads only the environment of declared flags when other variables are set', () => {
    const parsed = parseCommandLine(
      [],
      { INGRESSKIT_HTTP_PORT: 'not-a-port' },
      { command: 'x', flags: ['kubeconfig'] },
    );
    expect(parsed.flags['http-port']).toBe(80);
  });

  it('collects positional arguments up to the limit when the command takes some', () => {
    const parsed = parseCommandLine(
      ['ingress', 'default/web', '--output=json'],
      {},
      {
        command: 'ingresskit explain',
        flags: ['output'],
        maxPositionals: 2,
      },
    );
    expect(parsed.positionals).toEqual(['ingress', 'default/web']);
    expect(parsed.flags.output).toBe('json');
  });

  it('uses the command defaults when they override the shared ones', () => {
    const parsed = parseCommandLine(
      [],
      {},
      { command: 'ingresskit demo', flags: ['http-port'], defaults: { 'http-port': 8080 } },
    );
    expect(parsed.flags['http-port']).toBe(8080);
  });
});

describe('formatRunFlagsHelp', () => {
  it('lists every run flag with its default and environment variable', () => {
    const help = formatRunFlagsHelp();
    const defaults = defaultFlags();
    for (const name of runFlagNames) {
      const value = defaults[name];
      const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
      expect(help).toContain(`--${name}`);
      expect(help).toContain(`default: ${shown}   env: ${envVarOf(name)}`);
    }
  });

  it('covers the flags ingress-nginx users look for when reading the help', () => {
    const help = formatRunFlagsHelp();
    for (const name of [
      'watch-namespace',
      'controller-class',
      'ingress-class',
      'watch-ingress-without-class',
      'ingress-class-by-name',
      'publish-service',
      'publish-status-address',
      'update-status-on-shutdown',
      'election-id',
      'report-node-internal-ip-address',
      'sync-rate-limit',
      'default-backend-service',
      'healthz-port',
      'enable-ingress-checksum',
      'gateway-controller-name',
    ]) {
      expect(help).toContain(`--${name}`);
    }
  });
});

describe('envVarOf', () => {
  it('upper-cases and underscores the flag name when mapping it to the environment', () => {
    expect(envVarOf('report-node-internal-ip-address')).toBe('INGRESSKIT_REPORT_NODE_INTERNAL_IP_ADDRESS');
  });
});

describe('--validating-webhook', () => {
  const configOf = (argv: string[]) => resolveControllerConfig(parseRunFlags(argv, {}), {});
  const files = [
    '--validating-webhook-certificate=/certs/tls.crt',
    '--validating-webhook-key=/certs/tls.key',
  ];

  it('is off by default and takes :PORT, HOST:PORT and [IPv6]:PORT as ingress-nginx does', () => {
    expect(configOf([]).admissionWebhook).toBeUndefined();
    expect(configOf(['--validating-webhook=:8443', ...files]).admissionWebhook).toEqual({
      host: undefined,
      port: 8443,
      certificateFile: '/certs/tls.crt',
      keyFile: '/certs/tls.key',
    });
    expect(configOf(['--validating-webhook=0.0.0.0:8443', ...files]).admissionWebhook?.host).toBe('0.0.0.0');
    expect(configOf(['--validating-webhook=[::]:8443', ...files]).admissionWebhook?.host).toBe('::');
  });

  it('refuses an address without a port, a port out of range, and a webhook without its TLS files', () => {
    expect(() => configOf(['--validating-webhook=8443', ...files])).toThrow(
      /--validating-webhook must be HOST:PORT/,
    );
    expect(() => configOf(['--validating-webhook=:70000', ...files])).toThrow(
      /--validating-webhook must be HOST:PORT/,
    );
    expect(() => configOf(['--validating-webhook=:8443'])).toThrow(
      /--validating-webhook needs --validating-webhook-certificate and --validating-webhook-key/,
    );
  });
});

describe('durations', () => {
  it.each([
    ['30', 30],
    ['30s', 30],
    ['1m30s', 90],
    ['1h', 3600],
    ['1.5s', 1.5],
    ['500ms', 0.5],
    ['1500\u00b5s', 0.0015],
  ])('reads %s as %d seconds, as Go and ingress-nginx do', (raw, seconds) => {
    expect(parseDurationSeconds(raw)).toBe(seconds);
  });

  it.each(['', '30 seconds', '-5s', '1d', 's', '1m30'])('refuses %j', (raw) => {
    expect(parseDurationSeconds(raw)).toBeUndefined();
  });

  it('takes --election-ttl as a duration and names the flag when it is not one', () => {
    expect(resolveControllerConfig(parseRunFlags(['--election-ttl=1m30s'], {}), {}).electionTtlMs).toBe(
      90_000,
    );
    expect(() => parseRunFlags(['--election-ttl=soon'], {})).toThrow(
      '--election-ttl must be a duration such as 30s, 1m30s or 500ms (or a number of seconds), not "soon"',
    );
  });
});

describe('--max-paths-per-ingress', () => {
  it('defaults to 1000 paths per Ingress, and 0 lifts the limit', () => {
    expect(resolveControllerConfig(parseRunFlags([], {}), {}).maxPathsPerIngress).toBe(1000);
    expect(
      resolveControllerConfig(parseRunFlags([], { INGRESSKIT_MAX_PATHS_PER_INGRESS: '0' }), {})
        .maxPathsPerIngress,
    ).toBe(0);
  });
});

describe('--allow-snippet-directives', () => {
  const configOf = (argv: string[]) => resolveControllerConfig(parseRunFlags(argv, {}), {});

  it('allows no snippet directive by default', () => {
    expect(configOf([]).allowedSnippetDirectives).toEqual([]);
  });

  it('takes a comma-separated list of the directives a snippet may hold, sorted and unique', () => {
    expect(
      configOf(['--allow-snippet-directives=more_set_headers, add_header,more_set_headers,'])
        .allowedSnippetDirectives,
    ).toEqual(['add_header', 'more_set_headers']);
  });

  it('refuses a directive configuration-snippet cannot hold, naming it', () => {
    expect(() => configOf(['--allow-snippet-directives=add_header,include'])).toThrow(FlagError);
    expect(() => configOf(['--allow-snippet-directives=content_by_lua_block'])).toThrow(
      /--allow-snippet-directives takes directives of add_header, .*, not "content_by_lua_block"/,
    );
  });
});

describe('--enable-ssl-passthrough and the services ConfigMaps', () => {
  const configOf = (argv: string[]) => resolveControllerConfig(parseRunFlags(argv, {}), {});

  it('are off by default, and take ingress-nginx flags as they are', () => {
    expect(configOf([])).toMatchObject({
      sslPassthrough: false,
      sslPassthroughProxyPort: 442,
      tcpServicesConfigMap: undefined,
      udpServicesConfigMap: undefined,
    });
    const config = configOf([
      '--enable-ssl-passthrough',
      '--tcp-services-configmap=ingress-nginx/tcp-services',
      '--udp-services-configmap=ingress-nginx/udp-services',
    ]);
    expect(config).toMatchObject({
      sslPassthrough: true,
      tcpServicesConfigMap: 'ingress-nginx/tcp-services',
      udpServicesConfigMap: 'ingress-nginx/udp-services',
    });
    expect(storeKindsOf(config)).toContain('ConfigMap');
  });

  it('refuses a proxy port that is another listener, and a ConfigMap that is not NAMESPACE/NAME', () => {
    expect(() => configOf(['--enable-ssl-passthrough', '--ssl-passthrough-proxy-port=443'])).toThrow(
      '--https-port and --ssl-passthrough-proxy-port must differ',
    );
    expect(() => configOf(['--ssl-passthrough-proxy-port=443'])).not.toThrow();
    expect(() => configOf(['--tcp-services-configmap=tcp-services'])).toThrow(
      /--tcp-services-configmap must be NAMESPACE\/NAME/,
    );
  });
});

describe('--watch-namespace-selector', () => {
  const configOf = (argv: string[]) => resolveControllerConfig(parseRunFlags(argv, {}), {});

  it('asks the store for the Ingresses of matching namespaces only when it is set', () => {
    const config = configOf(['--watch-namespace-selector=team in (a,b),!legacy']);
    expect(config.watchNamespaceSelector).toBe('team in (a,b),!legacy');
    expect(storeNamespaceScopeOf(config)).toEqual({
      namespaceSelector: 'team in (a,b),!legacy',
      namespaceSelectorKinds: ['Ingress'],
    });
    expect(storeNamespaceScopeOf(configOf(['--watch-namespace=a,b']))).toEqual({ namespaces: ['a', 'b'] });
  });

  it('is a flag error naming the flag when the selector does not parse', () => {
    expect(() => configOf(['--watch-namespace-selector=team in a'])).toThrow(FlagError);
    expect(() => configOf(['--watch-namespace-selector=team in a'])).toThrow(/^--watch-namespace-selector: /);
  });

  it('is refused with --watch-namespace, as ingress-nginx refuses it', () => {
    expect(() => configOf(['--watch-namespace=a', '--watch-namespace-selector=team=a'])).toThrow(
      '--watch-namespace and --watch-namespace-selector are mutually exclusive',
    );
  });
});
