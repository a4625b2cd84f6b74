import { describe, expect, it } from 'vitest';
import type { RouteTable } from '@ingresskit/route-model';
import {
  buildConfiguration,
  InvalidRenderOptionsError,
  renderNginxConf,
  UnsafeValueError,
  type RenderOptions,
} from './index.js';
import { checkStreamAccessLogOptions, viewStreamAccessLog } from './stream-access-log.js';
import { createTestTable } from './testing/routes.js';

const table: RouteTable = createTestTable({ virtualHosts: [], backends: [] });
const checkPath = (_option: string, value: unknown) => String(value);

function render(options: Partial<RenderOptions>): string {
  return renderNginxConf(
    buildConfiguration(table, {
      controlSocketPath: '/run/ingresskit/control.sock',
      accessLogPath: '/var/log/ik/access.log',
      streamServices: [{ protocol: 'TCP', port: 5432, endpoints: [{ address: '10.0.0.1', port: 5432 }] }],
      ...options,
    }).configuration,
  );
}

describe('checkStreamAccessLogOptions', () => {
  it("follows the HTTP access log's path, and is off with it", () => {
    expect(checkStreamAccessLogOptions(undefined, 'access.log', checkPath)).toEqual({ path: 'access.log' });
    expect(checkStreamAccessLogOptions({ path: '/var/log/tcp.log' }, false, checkPath)).toBeUndefined();
    expect(checkStreamAccessLogOptions({ path: false }, 'access.log', checkPath)).toBeUndefined();
  });

  it('renders the format as text and ${name} variables, and refuses router fields', () => {
    expect(
      checkStreamAccessLogOptions(
        {
          path: '/var/log/tcp.log',
          format: [{ variable: 'protocol' }, { text: ' "' }, { variable: 'status' }, { text: '"' }],
        },
        'access.log',
        checkPath,
      ),
    ).toEqual({ path: '/var/log/tcp.log', format: '${protocol} "${status}"' });
    expect(() =>
      checkStreamAccessLogOptions({ format: [{ field: 'namespace' }] }, 'access.log', checkPath),
    ).toThrow(/streamAccessLog.format must hold text and variable parts only/);
    expect(() =>
      checkStreamAccessLogOptions({ format: [{ text: 'a\nb' }] }, 'access.log', checkPath),
    ).toThrow(InvalidRenderOptionsError);
  });
});

describe('viewStreamAccessLog', () => {
  it('refuses a format checkStreamAccessLogOptions did not make', () => {
    expect(() => viewStreamAccessLog({ path: 'a.log', format: "x'; error_log /tmp/x" }, [])).not.toThrow();
    expect(() => viewStreamAccessLog({ path: 'a.log', format: '$status' }, [])).toThrow(UnsafeValueError);
  });
});

describe('renderNginxConf stream access log', () => {
  it("logs each connection in ingress-nginx's default format to the access log's path, with its parameters", () => {
    const conf = render({ accessLog: { buffer: '16k' } });
    expect(conf).toContain(
      "    log_format ingresskit_stream '[$remote_addr] [$time_local] $protocol $status $bytes_sent $bytes_received $session_time';\n" +
        '    access_log "/var/log/ik/access.log" ingresskit_stream buffer=16k;',
    );
  });

  it('renders the configured format and path', () => {
    const conf = render({
      streamAccessLog: {
        path: '/var/log/ik/tcp.log',
        format: [{ text: '{"p": "' }, { variable: 'protocol' }, { text: '"}' }],
      },
    });
    expect(conf).toContain('log_format ingresskit_stream "{\\"p\\": \\"${protocol}\\"}";');
    expect(conf).toContain('access_log "/var/log/ik/tcp.log" ingresskit_stream;');
  });

  it('logs nothing without an access log or without stream services', () => {
    expect(render({ accessLogPath: false })).not.toContain('ingresskit_stream');
    expect(render({ streamServices: [] })).not.toContain('ingresskit_stream');
  });
});
