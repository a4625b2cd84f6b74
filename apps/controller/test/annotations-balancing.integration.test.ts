/**
 * ingress-nginx's load-balance and upstream-hash-by-subset end to end (local API server, the
 * controller, nginx, real HTTP): ewma prefers the endpoint that answers faster, round_robin takes
 * turns; a hash key with subsets stays within its subset of endpoints and spreads over it.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, serviceManifests } from './harness.js';

/** A backend answering its name after `delayMs`. */
function answerAfter(name: string, delayMs: number): RequestListener {
  return (_request, response) => {
    setTimeout(() => response.end(name), delayMs);
  };
}

const names = ['e1', 'e2', 'e3', 'e4', 'e5', 'e6'];

const testCase = useAnnotationsCase({
  config: { podName: 'balancing' },
  backends: names,
  readyHost: 'rr.test',
  objects: async ({ backends, listen }) => [
    ...serviceManifests(
      'six',
      names.map((name) => backends.get(name)!),
    ),
    ...serviceManifests('mixed', []),
    endpointSliceManifest('mixed-fast', 'mixed', await listen(answerAfter('fast', 0))),
    endpointSliceManifest('mixed-slow', 'mixed', await listen(answerAfter('slow', 150))),
    annotatedIngress('ewma.test', 'mixed', { [`${A}load-balance`]: 'ewma' }, { name: 'ewma' }),
    annotatedIngress('rr.test', 'mixed', { [`${A}load-balance`]: 'round_robin' }, { name: 'rr' }),
    annotatedIngress(
      'subset.test',
      'six',
      {
        [`${A}upstream-hash-by`]: '$arg_u',
        [`${A}upstream-hash-by-subset`]: 'true',
        [`${A}upstream-hash-by-subset-size`]: '2',
      },
      { name: 'subset' },
    ),
  ],
});

function answer(host: string, path = '/'): Promise<string> {
  return testCase().answer(host, { path });
}

async function shareOf(host: string, name: string, count: number): Promise<number> {
  let hits = 0;
  for (let index = 0; index < count; index += 1) if ((await answer(host)) === name) hits += 1;
  return hits / count;
}

describe('load-balance', () => {
  it('ewma sends most requests to the endpoint that answers faster', async () => {
    expect(await shareOf('ewma.test', 'fast', 30)).toBeGreaterThanOrEqual(0.8);
  });

  it('round_robin takes turns whatever the response times', async () => {
    const share = await shareOf('rr.test', 'fast', 20);
    expect(share).toBeGreaterThanOrEqual(0.4);
    expect(share).toBeLessThanOrEqual(0.6);
  });
});

describe('upstream-hash-by-subset', () => {
  it('keeps each key within a subset of upstream-hash-by-subset-size endpoints, spread over it', async () => {
    const sizes: number[] = [];
    for (const key of ['a', 'b', 'c', 'd']) {
      const seen = new Set<string>();
      for (let index = 0; index < 24; index += 1) seen.add(await answer('subset.test', `/?u=${key}`));
      sizes.push(seen.size);
    }
    expect(sizes).toEqual([2, 2, 2, 2]);
  });
});
