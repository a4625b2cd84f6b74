import { describe, expect, it } from 'vitest';
import { INGRESS_NGINX_STREAM_LOG_FORMAT, parseStreamLogFormat } from './stream-log-format.js';

describe('parseStreamLogFormat', () => {
  it("reads ingress-nginx's default stream format", () => {
    expect(parseStreamLogFormat(INGRESS_NGINX_STREAM_LOG_FORMAT)).toEqual([
      { text: '[' },
      { variable: 'remote_addr' },
      { text: '] [' },
      { variable: 'time_local' },
      { text: '] ' },
      { variable: 'protocol' },
      { text: ' ' },
      { variable: 'status' },
      { text: ' ' },
      { variable: 'bytes_sent' },
      { text: ' ' },
      { variable: 'bytes_received' },
      { text: ' ' },
      { variable: 'session_time' },
    ]);
  });

  it('reads a JSON format of upstream variables', () => {
    expect(
      parseStreamLogFormat('{"upstream": "${upstream_addr}", "connect": $upstream_connect_time}'),
    ).toEqual([
      { text: '{"upstream": "' },
      { variable: 'upstream_addr' },
      { text: '", "connect": ' },
      { variable: 'upstream_connect_time' },
      { text: '}' },
    ]);
  });

  it("reads ingress-nginx's $proxy_upstream_name, which each stream server sets", () => {
    expect(parseStreamLogFormat('$proxy_upstream_name $upstream_addr')).toEqual([
      { variable: 'proxy_upstream_name' },
      { text: ' ' },
      { variable: 'upstream_addr' },
    ]);
  });

  it.each([
    ['$request', /"\$request", which is not a variable of nginx's stream modules/],
    ['$http_host', /not a variable of nginx's stream modules/],
    ['$namespace', /not a variable of nginx's stream modules/],
    ['$proxy_alternative_upstream_name', /not a variable of nginx's stream modules/],
    ['$status\n', /holds "\\n"/],
    ['', /must not be empty/],
  ])('refuses %j', (format, message) => {
    expect(parseStreamLogFormat(format)).toMatch(message);
  });
});
