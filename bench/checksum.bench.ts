/**
 * @ingresskit/checksum: the cost of Tengine's global checksum over 100,000 configuration ids, next to
 * its floor measured in the same process (md5 of the already-joined string, and the sort alone),
 * plus verification and id derivation.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildIngressCheckSum,
  computeChecksum,
  ingressConfigId,
  secretConfigId,
  verifyChecksum,
} from '@ingresskit/checksum';
import { formatNumber, percentile, printSection, timeIt } from './lib/measure.js';

const idCount = 100_000;
const runs = 25;

// A fixed-seed generator keeps the input the same from run to run.
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const random = createRandom(42);
const ids = Array.from(
  { length: idCount },
  (_, i) => `${i * 7 + Math.floor(random() * 7)}-${1 + Math.floor(random() * 4)}`,
);
// Shuffle so that the sort has real work to do, as with ids read from an informer cache.
for (let i = ids.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [ids[i], ids[j]] = [ids[j]!, ids[i]!];
}
const joined = [...ids].sort().join(',');

async function medianMs(fn: () => unknown): Promise<number> {
  for (let i = 0; i < 3; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push((await timeIt(fn)).ms);
  return percentile(samples, 50);
}

const md5Ms = await medianMs(() => createHash('md5').update(joined, 'utf8').digest('hex'));
const sortMs = await medianMs(() => [...ids].sort());
const joinMs = await medianMs(() => ids.join(','));
const checksumMs = await medianMs(() => computeChecksum(ids));
const floorMs = md5Ms + sortMs;

function row(operation: string, ms: number) {
  return {
    operation,
    'median ms': formatNumber(ms, 2),
    'ids/s': formatNumber((idCount / ms) * 1000, 0),
    '× (sort + md5) floor': formatNumber(ms / floorMs, 2),
  };
}

printSection(
  'checksum: computeChecksum over 100,000 ids',
  [
    row('computeChecksum (copy, sort, join, md5)', checksumMs),
    row('floor: sort alone (copy + sort)', sortMs),
    row('floor: md5 of the already-joined string', md5Ms),
    row('join alone', joinMs),
  ],
  `Ids like \`700123-2\` in shuffled order (${formatNumber(joined.length / 2 ** 20, 1)} MiB joined); median of ${runs} runs after 3 warm-up runs. ` +
    `The floor is the sort plus the md5 of the joined string, ${formatNumber(floorMs, 2)} ms.`,
);

const object = buildIngressCheckSum(ids, { namespace: 'ingress', now: new Date(0) });
const changed = [...ids];
changed[0] = '999999999-1';
const verifyOkMs = await medianMs(() => verifyChecksum(ids, [object]));
const verifyDiffMs = await medianMs(() => verifyChecksum(changed, [object]));

const ingresses = ids.map((id, i) => {
  const [suffix, version] = id.split('-');
  return {
    metadata: {
      name: `shop-${i % 97}-example-com-${suffix}`,
      namespace: `team-${i % 13}`,
      annotations: { 'nginx.ingress.kubernetes.io/version': version! },
    },
  };
});
const idsMs = await medianMs(() => ingresses.map((ingress) => ingressConfigId(ingress).id));

const tls = join(import.meta.dirname, '..', 'packages', 'checksum', 'testdata', 'tls');
const toBase64 = (file: string) => readFileSync(join(tls, file)).toString('base64');
const secretCount = 1_000;
const secrets = Array.from({ length: secretCount }, (_, i) => ({
  metadata: { name: `cert-${i}`, annotations: { 'nginx.ingress.kubernetes.io/version': '1' } },
  data: { 'tls.crt': toBase64('shop.crt'), 'tls.key': toBase64('shop.key') },
}));
const secretsMs = await medianMs(() => secrets.map((secret) => secretConfigId(secret).id));

printSection(
  'checksum: verification and id derivation',
  [
    {
      operation: 'verifyChecksum, 100,000 ids, match',
      'median ms': formatNumber(verifyOkMs, 2),
      'items/s': formatNumber((idCount / verifyOkMs) * 1000, 0),
      '× computeChecksum': formatNumber(verifyOkMs / checksumMs, 2),
    },
    {
      operation: 'verifyChecksum, 100,000 ids, one id differs (with diff)',
      'median ms': formatNumber(verifyDiffMs, 2),
      'items/s': formatNumber((idCount / verifyDiffMs) * 1000, 0),
      '× computeChecksum': formatNumber(verifyDiffMs / checksumMs, 2),
    },
    {
      operation: 'ingressConfigId × 100,000 Ingresses',
      'median ms': formatNumber(idsMs, 2),
      'items/s': formatNumber((idCount / idsMs) * 1000, 0),
      '× computeChecksum': formatNumber(idsMs / checksumMs, 2),
    },
    {
      operation: 'secretConfigId × 1,000 TLS Secrets (EC P-256, key check)',
      'median ms': formatNumber(secretsMs, 2),
      'items/s': formatNumber((secretCount / secretsMs) * 1000, 0),
      '× computeChecksum': '',
    },
  ],
  `Same ids; the mismatch case also builds the two-way diff. Median of ${runs} runs.`,
);
