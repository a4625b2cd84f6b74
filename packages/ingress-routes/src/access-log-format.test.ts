import { describe, expect, it } from 'vitest';
import { INGRESS_NGINX_LOG_FORMAT, parseAccessLogFormat } from './access-log-format.js';

describe('parseAccessLogFormat', () => {
  it('reads text and variables in both spellings, merging adjacent text', () => {
    expect(parseAccessLogFormat('$remote_addr [${time_local}]x$status')).toEqual([
      { variable: 'remote_addr' },
      { text: ' [' },
      { variable: 'time_local' },
      { text: ']x' },
      { variable: 'status' },
    ]);
  });

  it("reads ingress-nginx's default format, its own variables as the fields the gateway provides", () => {
    const parts = parseAccessLogFormat(INGRESS_NGINX_LOG_FORMAT);
    expect(Array.isArray(parts)).toBe(true);
    expect(parts).toEqual(
      expect.arrayContaining([
        { field: 'backend' },
        { field: 'alternative-backend' },
        { field: 'request-id' },
        { variable: 'upstream_response_time' },
      ]),
    );
  });

  it("reads ingress-nginx's variables of the route's origin as the fields the gateway provides", () => {
    expect(
      parseAccessLogFormat('$namespace/${ingress_name} $service_name:$service_port $location_path'),
    ).toEqual([
      { field: 'namespace' },
      { text: '/' },
      { field: 'ingress-name' },
      { text: ' ' },
      { field: 'service-name' },
      { text: ':' },
      { field: 'service-port' },
      { text: ' ' },
      { field: 'location-path' },
    ]);
  });

  it("reads ingress-nginx's JSON example: quotes and braces are text", () => {
    expect(
      parseAccessLogFormat('{"time": "$time_iso8601", "ip": "$the_real_ip", "ua": "$http_user_agent"}'),
    ).toEqual([
      { text: '{"time": "' },
      { variable: 'time_iso8601' },
      { text: '", "ip": "' },
      { variable: 'remote_addr' },
      { text: '", "ua": "' },
      { variable: 'http_user_agent' },
      { text: '"}' },
    ]);
  });

  it('takes the header, cookie and argument families of variables', () => {
    for (const name of [
      'http_x_forwarded_for',
      'sent_http_content_type',
      'cookie_session',
      'arg_q',
      'upstream_http_server',
    ])
      expect(parseAccessLogFormat(`$${name}`)).toEqual([{ variable: name }]);
    expect(parseAccessLogFormat('$http_')).toMatch(/"\$http_", which is not a variable/);
  });

  it.each([
    ['$no_such_variable', /names "\$no_such_variable", which is not a variable nginx or ingresskit defines/],
    // The router's own variables hold TLS keys and internal state.
    ['$ingresskit_backend_key', /not a variable nginx or ingresskit defines/],
    ['$Remote_Addr', /not of a-z 0-9 _/],
    ['${remote addr}', /not of a-z 0-9 _/],
    ['${remote_addr', /without its "}"/],
    ['cost: $', /"\$" at 6 that starts no variable/],
    ['$ $status', /starts no variable/],
    ['a\\b', /holds "\\\\" at 1/],
    ['line\nbreak', /holds "\\n" at 4/],
    ['nul\u0000', /holds "\\u0000"/],
    ['caf\u00e9', /printable ASCII/],
    ['   ', /must not be empty/],
    ['x'.repeat(5000), /at most 4096/],
  ])('refuses %j', (format, message) => {
    expect(parseAccessLogFormat(format)).toMatch(message);
  });

  it('keeps text nginx.conf would otherwise read as syntax as plain text', () => {
    expect(parseAccessLogFormat(`'; } access_log /etc/passwd; #`)).toEqual([
      { text: `'; } access_log /etc/passwd; #` },
    ]);
  });
});
