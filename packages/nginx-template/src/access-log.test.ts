import { describe, expect, it } from 'vitest';
import type { RouteTable } from '@ingresskit/route-model';
import { checkAccessLogOptions, viewAccessLog, type AccessLogOptions } from './access-log.js';
import { buildConfiguration, InvalidRenderOptionsError, renderNginxConf, UnsafeValueError } from './index.js';
import { createTestTable } from './testing/routes.js';

const table: RouteTable = createTestTable({ virtualHosts: [], backends: [] });

function render(accessLog: AccessLogOptions | undefined): string {
  return renderNginxConf(
    buildConfiguration(table, {
      controlSocketPath: '/run/ingresskit/control.sock',
      accessLogPath: '/var/log/ik/access.log',
      ...(accessLog === undefined ? {} : { accessLog }),
    }).configuration,
  );
}

describe('checkAccessLogOptions', () => {
  it('renders variables as ${name} and the fields as the router variables', () => {
    expect(
      checkAccessLogOptions({
        format: [
          { text: '{"s": "' },
          { variable: 'status' },
          { text: '", "b": "' },
          { field: 'backend' },
          { text: '", "id": "' },
          { field: 'request-id' },
          { text: '"}' },
        ],
      }),
    ).toEqual({
      format: '{"s": "${status}", "b": "${ingresskit_backend}", "id": "${ingresskit_request_id}"}',
      logsBackend: true,
    });
  });

  it("lists the route origin fields the format names, in the order of a route entry's origin", () => {
    expect(
      checkAccessLogOptions({
        format: [
          { field: 'location-path' },
          { text: ' ' },
          { field: 'namespace' },
          { field: 'location-path' },
        ],
      }),
    ).toEqual({
      format: '${ingresskit_location_path} ${ingresskit_namespace}${ingresskit_location_path}',
      logsOrigin: ['namespace', 'location-path'],
    });
  });

  it('is undefined at the defaults, so that configurations without it hash as before', () => {
    expect(checkAccessLogOptions(undefined)).toBeUndefined();
    expect(checkAccessLogOptions({ escape: 'default', skipUris: [] })).toBeUndefined();
  });

  it('orders the parameters and drops URIs nginx would compare equal', () => {
    expect(
      checkAccessLogOptions({ flush: '5s', gzipLevel: 4, buffer: '64k', skipUris: ['/a', '/A', '/b'] }),
    ).toEqual({ params: ['buffer=64k', 'gzip=4', 'flush=5s'], skipUris: ['/a', '/b'] });
  });

  it.each<[AccessLogOptions, RegExp]>([
    [{ format: [] }, /at least one part/],
    [{ format: [{ text: 'a\\b' }] }, /printable ASCII/],
    [{ format: [{ text: 'a$b' }] }, /printable ASCII/],
    [{ format: [{ text: 'a\nb' }] }, /printable ASCII/],
    [{ format: [{ variable: 'Remote' }] }, /variable names/],
    [{ format: [{ variable: 'a}b' }] }, /variable names/],
    [{ format: [{ variable: 'ingresskit_backend_key' }] }, /variable names/],
    [{ format: [{ field: 'secret' } as never] }, /text, variable or field/],
    [{ escape: 'html' as never }, /default, json or none/],
    [{ buffer: '16k;' }, /size/],
    [{ gzipLevel: 0 }, /1 to 9/],
    [{ flush: '5s' }, /needs buffer/],
    [{ skipUris: ['/ok', 'default'] }, /URIs starting with/],
    [{ skipUris: ['/x" 0; } access_log /tmp/y; map $a $b {'] }, /URIs starting with/],
  ])('refuses %j', (options, message) => {
    expect(() => checkAccessLogOptions(options)).toThrow(InvalidRenderOptionsError);
    expect(() => checkAccessLogOptions(options)).toThrow(message);
  });
});

describe('viewAccessLog', () => {
  it('refuses settings checkAccessLogOptions did not make', () => {
    expect(() => viewAccessLog({ format: '${status}; error_log /tmp/x' })).not.toThrow();
    expect(() => viewAccessLog({ format: 'a\\"; x' })).toThrow(UnsafeValueError);
    expect(() => viewAccessLog({ format: '$status' })).toThrow(UnsafeValueError);
    expect(() => viewAccessLog({ params: ['if=$x'] })).toThrow(UnsafeValueError);
    expect(() => viewAccessLog({ skipUris: ['default'] })).toThrow(UnsafeValueError);
    expect(() => viewAccessLog({ logsOrigin: ['backend_key' as never] })).toThrow(UnsafeValueError);
  });
});

describe('renderNginxConf access log', () => {
  it("keeps ingresskit's own format and condition by default", () => {
    const conf = render(undefined);
    expect(conf).toContain(`log_format ingresskit '$remote_addr - $remote_user`);
    expect(conf).toContain('access_log "/var/log/ik/access.log" ingresskit if=$ingresskit_log;');
    expect(conf).not.toContain('ingresskit_loggable');
    expect(conf).not.toContain('log_backend');
  });

  it('renders the format quoted, the escaping, the parameters and the map of skipped URIs', () => {
    const conf = render({
      format: [
        { text: `{"r": "` },
        { variable: 'request' },
        { text: `", "b": "` },
        { field: 'alternative-backend' },
        { text: '"}' },
      ],
      escape: 'json',
      buffer: '16k',
      flush: '2s',
      skipUris: ['/healthz', '/ping?full=1'],
    });
    expect(conf).toContain(
      'log_format ingresskit escape=json "{\\"r\\": \\"${request}\\", \\"b\\": \\"${ingresskit_alternative_backend}\\"}";',
    );
    expect(conf).toContain(
      [
        '    map $request_uri $ingresskit_loggable {',
        '        "/healthz" 0;',
        '        "/ping?full=1" 0;',
        '        default $ingresskit_log;',
        '    }',
      ].join('\n'),
    );
    expect(conf).toContain(
      'access_log "/var/log/ik/access.log" ingresskit buffer=16k flush=2s if=$ingresskit_loggable;',
    );
    expect(conf).toContain('map "" $ingresskit_alternative_backend { default ""; }');
    expect(conf).toContain('log_backend = true,');
    expect(conf).not.toContain('log_origin');
  });

  it('declares the origin variables the format names and tells the router their index in the route origin', () => {
    const conf = render({
      format: [{ field: 'service-port' }, { text: ' ' }, { field: 'ingress-name' }],
    });
    expect(conf).toContain('map "" $ingresskit_ingress_name { default ""; }');
    expect(conf).toContain('map "" $ingresskit_service_port { default ""; }');
    expect(conf).not.toContain('$ingresskit_namespace');
    expect(conf).toContain(
      [
        '            log_origin = {',
        '                [2] = "ingresskit_ingress_name",',
        '                [4] = "ingresskit_service_port",',
        '            },',
      ].join('\n'),
    );
  });
});
