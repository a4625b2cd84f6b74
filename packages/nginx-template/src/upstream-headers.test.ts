import { describe, expect, it } from 'vitest';
import { InvalidRenderOptionsError } from './errors.js';
import { buildConfiguration } from './build-configuration.js';
import { renderNginxConf } from './render.js';
import { httpSettingsOf } from './testing/nginx-conf-parser.js';
import { createTestTable } from './testing/routes.js';
import { checkUpstreamHeaders } from './upstream-headers.js';

describe('checkUpstreamHeaders', () => {
  it('leaves the defaults out, so a configuration without options hashes as before', () => {
    expect(checkUpstreamHeaders(undefined)).toBeUndefined();
    expect(checkUpstreamHeaders({ requestId: true, originalUri: false, hide: [] })).toBeUndefined();
  });

  it('keeps what differs from the defaults, each hidden header once', () => {
    expect(
      checkUpstreamHeaders({ requestId: false, originalUri: true, hide: ['X-A', 'X-A', 'Server'] }),
    ).toEqual({
      noRequestId: true,
      originalUri: true,
      hide: ['X-A', 'Server'],
    });
  });

  it('refuses a hidden header that is no header name', () => {
    for (const name of ['X A', 'X-A;', '', 'x'.repeat(65)])
      expect(() => checkUpstreamHeaders({ hide: [name] })).toThrow(InvalidRenderOptionsError);
  });
});

describe('renderNginxConf with upstreamHeaders', () => {
  // The http block's own lines: the error and hop locations have header lines of their own.
  const render = (upstreamHeaders?: Parameters<typeof checkUpstreamHeaders>[0]) =>
    httpSettingsOf(
      renderNginxConf(
        buildConfiguration(createTestTable({}), {
          controlSocketPath: '/run/ingresskit/control.sock',
          ...(upstreamHeaders === undefined ? {} : { upstreamHeaders }),
        }).configuration,
      ),
    );

  it('sends X-Request-ID to HTTP and gRPC backends by default, as ingress-nginx', () => {
    const conf = render();
    expect(conf).toContain('proxy_set_header X-Request-ID $ingresskit_request_id;');
    expect(conf).toContain('grpc_set_header X-Request-ID $ingresskit_request_id;');
    expect(conf).not.toContain('    proxy_set_header X-Original-URI $request_uri;\n');
    expect(conf).not.toContain('proxy_hide_header');
  });

  it('renders X-Original-URI and the hidden headers, and leaves X-Request-ID to the client', () => {
    const conf = render({ requestId: false, originalUri: true, hide: ['X-Powered-By'] });
    expect(conf).not.toContain('proxy_set_header X-Request-ID $ingresskit_request_id;');
    expect(conf).toContain('    proxy_set_header X-Original-URI $request_uri;\n');
    expect(conf).toContain('    proxy_hide_header "X-Powered-By";\n');
  });
});
