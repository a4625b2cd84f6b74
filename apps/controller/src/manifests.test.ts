import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifests, toClusterObjects } from './manifests.js';
import { viewOfObjects } from './cluster-view.js';
import { routeAll } from './ingress-routing.js';

const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

// The demo's self-signed certificate for api.demo.test, as PEM text.
async function readDemoCertificate(): Promise<{ crt: string; key: string }> {
  const text = await readFile(new URL('../../../examples/60-tls-secret.yaml', import.meta.url), 'utf8');
  const secret = parse(text) as { data: Record<string, string> };
  const decode = (key: string) => Buffer.from(secret.data[key] ?? '', 'base64').toString('utf8');
  return { crt: decode('tls.crt'), key: decode('tls.key') };
}

function indent(text: string, spaces: number): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n');
}

describe('toClusterObjects', () => {
  it('serves TLS from a Secret that carries its certificate in stringData', async () => {
    const { crt, key } = await readDemoCertificate();
    const dir = await mkdtemp(join(tmpdir(), 'ingresskit-manifests-'));
    dirs.push(dir);
    await writeFile(
      join(dir, 'objects.yaml'),
      `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: ingresskit.dev/ingress-controller
---
apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  ports:
    - port: 80
---
apiVersion: v1
kind: Secret
metadata:
  name: api-tls
type: kubernetes.io/tls
stringData:
  tls.crt: |
${indent(crt, 4)}
  tls.key: |
${indent(key, 4)}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: api
spec:
  ingressClassName: nginx
  tls:
    - hosts: [api.demo.test]
      secretName: api-tls
  rules:
    - host: api.demo.test
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: api
                port:
                  number: 80
`,
    );

    const objects = toClusterObjects(await readManifests(dir));
    expect(objects.secrets).toHaveLength(1);
    expect(objects.secrets[0]?.metadata.namespace).toBe('default');

    const routing = routeAll(viewOfObjects(objects), {
      classConfig: {},
      listeners: [{ name: 'https', port: 443, protocol: 'HTTPS' }],
      now: () => Date.UTC(2026, 0, 1),
    });
    const keys = [...routing.verdicts()].map((verdict) => verdict.key);
    expect(keys.flatMap((key) => routing.problemsOf(key))).toEqual([]);
    const table = routing.table();
    expect(table.tls).toEqual([expect.objectContaining({ hostname: 'api.demo.test' })]);
    expect(table.certificates).toHaveLength(1);
  });
});
