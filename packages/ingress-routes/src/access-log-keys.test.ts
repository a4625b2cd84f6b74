import { describe, expect, it } from 'vitest';
import {
  ACCESS_LOG_KEYS,
  createConfigMapAccessLog,
  parseAccessLogParams,
  parseSkippedUris,
  trimConfigMapValue,
  type AccessLogKeys,
} from './access-log-keys.js';

function read(data: Record<string, string>): { keys: AccessLogKeys; problems: Record<string, string> } {
  const keys: AccessLogKeys = {};
  const problems: Record<string, string> = {};
  for (const [name, value] of Object.entries(data)) {
    const problem = ACCESS_LOG_KEYS[name]!(value, keys);
    if (problem !== undefined) problems[name] = problem;
  }
  return { keys, problems };
}

describe('parseAccessLogParams', () => {
  it('takes buffer, flush and gzip separated by spaces or commas', () => {
    expect(parseAccessLogParams('buffer=16k, gzip, flush=1m')).toEqual({
      buffer: '16k',
      gzipLevel: 1,
      flush: '1m',
    });
    expect(parseAccessLogParams('gzip=9 flush=500ms')).toEqual({ gzipLevel: 9, flush: '500ms' });
    expect(parseAccessLogParams('')).toEqual({});
  });

  it.each([
    ['if=$foo', /"if=\$foo": only buffer/],
    ['buffer=16k; error_log /tmp/x', /only buffer/],
    ['buffer=0', /only buffer/],
    ['buffer=16k buffer=32k', /names buffer twice/],
    ['gzip gzip=2', /names gzip twice/],
    ['gzip=10', /only buffer/],
    ['flush=5s', /flush without buffer or gzip/],
    ['toString', /only buffer/],
    ['format=json', /only buffer/],
  ])('refuses %j', (value, message) => {
    expect(parseAccessLogParams(value)).toMatch(message);
  });
});

describe('parseSkippedUris', () => {
  it('splits on commas and drops duplicates nginx would compare equal', () => {
    expect(parseSkippedUris(' /healthz, /metrics?x=1 ,/HEALTHZ,,')).toEqual(['/healthz', '/metrics?x=1']);
  });

  it.each([['healthz'], ['/a b'], ['/"x'], ['/x;y'], ['/$x'], ['~^/x'], ['/x\\y'], ['default'], ['/{x}']])(
    'refuses %j',
    (value) => {
      expect(parseSkippedUris(value)).toMatch(/is not a URL path/);
    },
  );
});

describe('ACCESS_LOG_KEYS', () => {
  it('reads the paths, with http-access-log-path and stream-access-log-path over access-log-path', () => {
    const { keys, problems } = read({
      'access-log-path': '/var/log/a.log',
      'http-access-log-path': '/var/log/http.log',
    });
    expect(problems).toEqual({});
    expect(createConfigMapAccessLog(keys)).toEqual({
      path: '/var/log/http.log',
      streamPath: '/var/log/a.log',
    });
    expect(createConfigMapAccessLog(read({ 'access-log-path': '/var/log/a.log' }).keys)).toEqual({
      path: '/var/log/a.log',
      streamPath: '/var/log/a.log',
    });
    expect(
      createConfigMapAccessLog(
        read({ 'access-log-path': '/var/log/a.log', 'stream-access-log-path': '/var/log/tcp.log' }).keys,
      ),
    ).toEqual({ path: '/var/log/a.log', streamPath: '/var/log/tcp.log' });
    expect(read({ 'stream-access-log-path': '/dev/stdout' }).problems['stream-access-log-path']).toMatch(
      /cannot open here/,
    );
  });

  it('reads log-format-stream with the variables of the stream modules and $proxy_upstream_name only', () => {
    const { keys, problems } = read({ 'log-format-stream': '$remote_addr $protocol $upstream_addr' });
    expect(problems).toEqual({});
    expect(createConfigMapAccessLog(keys)).toEqual({
      streamFormat: [
        { variable: 'remote_addr' },
        { text: ' ' },
        { variable: 'protocol' },
        { text: ' ' },
        { variable: 'upstream_addr' },
      ],
    });
    expect(read({ 'log-format-stream': '$status $request_uri' }).problems['log-format-stream']).toMatch(
      /"\$request_uri", which is not a variable of nginx's stream modules/,
    );
    expect(read({ 'log-format-stream': '[$proxy_upstream_name]' }).keys.streamFormat).toEqual([
      { text: '[' },
      { variable: 'proxy_upstream_name' },
      { text: ']' },
    ]);
  });

  it('drops the trailing newline of a block scalar from the log formats only', () => {
    expect(trimConfigMapValue('log-format-upstream', '{"status": $status}\n')).toBe('{"status": $status}');
    expect(trimConfigMapValue('log-format-stream', '$status \n\n')).toBe('$status');
    expect(trimConfigMapValue('log-format-upstream', '$status\n$request\n')).toBe('$status\n$request');
    expect(trimConfigMapValue('access-log-path', '/var/log/a.log\n')).toBe('/var/log/a.log\n');
  });

  it.each([
    ['relative.log', /absolute file path/],
    ['/var/log/../../etc/passwd', /absolute file path/],
    ['/var/log/a log', /absolute file path/],
    ['/var/log/a;b', /absolute file path/],
    ['/var/log/', /name a file/],
    ['/dev/stdout', /cannot open here/],
    ['syslog:server=10.0.0.1', /absolute file path/],
  ])('refuses the path %j', (value, message) => {
    expect(read({ 'access-log-path': value }).problems['access-log-path']).toMatch(message);
  });

  it('escapes none over json, as ingress-nginx', () => {
    expect(createConfigMapAccessLog(read({ 'log-format-escape-json': 'true' }).keys)).toEqual({
      escape: 'json',
    });
    expect(
      createConfigMapAccessLog(
        read({ 'log-format-escape-json': 'true', 'log-format-escape-none': 'true' }).keys,
      ),
    ).toEqual({ escape: 'none' });
    expect(createConfigMapAccessLog(read({ 'log-format-escape-json': 'false' }).keys)).toBeUndefined();
    expect(read({ 'log-format-escape-json': 'yes' }).problems['log-format-escape-json']).toMatch(
      /"true" or "false"/,
    );
  });

  it('gathers format, params and skipped URIs into one access log', () => {
    const { keys, problems } = read({
      'log-format-upstream': '$status $req_id',
      'access-log-params': 'buffer=32k flush=5s',
      'skip-access-log-urls': '/healthz',
    });
    expect(problems).toEqual({});
    expect(createConfigMapAccessLog(keys)).toEqual({
      format: [{ variable: 'status' }, { text: ' ' }, { field: 'request-id' }],
      buffer: '32k',
      flush: '5s',
      skipUris: ['/healthz'],
    });
  });
});
