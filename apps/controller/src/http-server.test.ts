import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from './http-server.js';
import { createLogger } from './logger.js';
import type { StreamedMetrics } from './streamed-metrics.js';

let server: HttpServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A registry with one counter, and streamed metrics `a` and `b` that count their reads. */
async function start() {
  const registry = new Registry();
  new Counter({ name: 'own_total', help: 'Own.', registers: [registry] }).inc();
  const reads: (string[] | undefined)[] = [];
  const streamed: StreamedMetrics = {
    names: ['a', 'b'],
    read(names) {
      reads.push(names && [...names]);
      const wanted = ['a', 'b'].filter((name) => names === undefined || names.has(name));
      return Promise.resolve(wanted.map((name) => `# TYPE ${name} counter\n${name} 1\n`));
    },
  };
  server = await startHttpServer({
    port: 0,
    host: '127.0.0.1',
    notReadyReason: () => undefined,
    registry,
    streamedMetrics: streamed,
    explain: () => ({ found: false }) as never,
    logger: createLogger({ level: 'silent' }),
  });
  const get = async (query = '') => {
    const response = await fetch(`http://127.0.0.1:${server!.port}/metrics${query}`);
    return { type: response.headers.get('content-type'), text: await response.text() };
  };
  return { get, reads };
}

describe('startHttpServer', () => {
  it("serves the registry's metrics, then the streamed ones, from one read", async () => {
    const { get, reads } = await start();
    const { type, text } = await get();
    expect(type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text).toBe(
      '# HELP own_total Own.\n# TYPE own_total counter\nown_total 1\n# TYPE a counter\na 1\n# TYPE b counter\nb 1\n',
    );
    expect(reads).toEqual([undefined]);
  });

  it('serves only the metrics ?name= names, reading the streamed ones only when one is named', async () => {
    const { get, reads } = await start();
    expect((await get('?name=b&name=own_total&name=nope')).text).toBe(
      '# HELP own_total Own.\n# TYPE own_total counter\nown_total 1\n# TYPE b counter\nb 1\n',
    );
    expect((await get('?name=own_total')).text).toBe(
      '# HELP own_total Own.\n# TYPE own_total counter\nown_total 1\n',
    );
    expect(reads).toEqual([['b']]);
  });
});
