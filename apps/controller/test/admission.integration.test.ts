/**
 * The validating admission webhook, called over HTTPS the way the API server calls it: an
 * AdmissionReview in, an AdmissionReview out. What the controller would leave out of an Ingress it
 * owns is refused with the messages `/explain` gives for the same Ingress once stored; a missing
 * TLS Secret, or a global-rate-limit before the ConfigMap names its memcached, is a warning (it may
 * be applied next); other controllers' Ingresses and deletions pass untouched. local-apiserver
 * does not call webhooks, so the test plays the API server's part.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import {
  controllerConfigMapManifest,
  createTempDir,
  eventually,
  ingressClassManifest,
  ingressManifest,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  tlsSecretManifest,
  regexIngressManifest,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let backends: Map<string, DemoBackend>;
let controller: Controller;
let temp: { dir: string; remove: () => Promise<void> };
let webhookCertificate: string;

beforeAll(async () => {
  temp = await createTempDir();
  const { certificatePem, privateKeyPem } = createSelfSignedCertificate({ commonName: 'localhost' });
  webhookCertificate = certificatePem;
  const certificateFile = join(temp.dir, 'webhook.crt');
  const keyFile = join(temp.dir, 'webhook.key');
  await writeFile(certificateFile, certificatePem);
  await writeFile(keyFile, privateKeyPem);
  backends = await startBackends('alpha');
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
  ]);
  controller = await startController(server, {
    podName: 'admission',
    configMap: 'ingresskit/ingresskit-controller',
    allowedSnippetDirectives: ['add_header'],
    admissionWebhook: { host: '127.0.0.1', port: 0, certificateFile, keyFile },
    maxRegexMatchesPerRequest: 2,
  });
}, 60_000);

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
  await temp?.remove();
});

interface Answer {
  status: number;
  body: {
    apiVersion?: string;
    kind?: string;
    message?: string;
    response?: {
      uid: string;
      allowed: boolean;
      status?: { code: number; message: string };
      warnings?: string[];
    };
  };
}

/** POSTs to the webhook as the API server does, trusting only the webhook's own certificate. */
function callWebhook(body: unknown, options: { method?: string; path?: string } = {}): Promise<Answer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port: controller.admissionPort,
        servername: 'localhost',
        ca: webhookCertificate,
        method: options.method ?? 'POST',
        path: options.path ?? '/networking/v1/ingresses',
        headers: { 'content-type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.method === 'GET' ? undefined : text);
  });
}

function review(object: Record<string, unknown>, operation = 'CREATE') {
  const metadata = object.metadata as { name: string; namespace: string };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
      name: metadata.name,
      namespace: metadata.namespace,
      operation,
      object: operation === 'DELETE' ? null : object,
      oldObject: operation === 'DELETE' ? object : null,
    },
  };
}

function withRegexPath(ingress: Record<string, unknown>): Record<string, unknown> {
  const rule = (ingress.spec as { rules: { http: { paths: { pathType: string }[] } }[] }).rules[0]!;
  rule.http.paths[0]!.pathType = 'ImplementationSpecific';
  return ingress;
}

describe('the validating admission webhook', () => {
  it('allows an Ingress the controller serves as written, answering with the request uid', async () => {
    const request = review(
      ingressManifest('good', { host: 'good.test', service: 'alpha', className: 'nginx' }),
    );
    const answer = await callWebhook(request);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: request.request.uid, allowed: true },
    });
  });

  it('refuses what the controller would leave out, with the messages /explain gives once it is stored', async () => {
    const broken = withRegexPath(
      ingressManifest('broken', {
        host: 'broken.test',
        service: 'alpha',
        className: 'nginx',
        path: '/[]x',
        annotations: {
          'nginx.ingress.kubernetes.io/use-regex': 'true',
          'nginx.ingress.kubernetes.io/proxy-body-size': '1 terabyte; evil',
        },
      }),
    );
    const answer = await callWebhook(review(broken));
    expect(answer.body.response?.allowed).toBe(false);
    expect(answer.body.response?.status?.code).toBe(400);
    const message = answer.body.response?.status?.message ?? '';
    expect(message).toContain('metadata.annotations["nginx.ingress.kubernetes.io/proxy-body-size"]');
    // The same Ingress, stored without a webhook in the way: the controller reports the same lines.
    await server.apply(broken);
    const explained = await eventually(async () => {
      const response = await fetch(
        `http://127.0.0.1:${controller.healthzPort}/explain?ingress=default/broken`,
      );
      const body = (await response.json()) as {
        problems: { field: string; message: string; severity: string }[];
      };
      expect(body.problems.length).toBeGreaterThan(0);
      return body.problems;
    });
    for (const problem of explained.filter((entry) => entry.severity === 'error')) {
      expect(message).toContain(`${problem.field}: ${problem.message}`);
    }
  });

  it("refuses an auth-url at a cloud metadata address or the controller's own port, in any spelling", async () => {
    const withAuthUrl = (name: string, url: string) =>
      ingressManifest(name, {
        host: `${name}.test`,
        service: 'alpha',
        className: 'nginx',
        annotations: { 'nginx.ingress.kubernetes.io/auth-url': url },
      });
    for (const [url, reason] of [
      ['http://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254 is a cloud metadata address'],
      ['http://100.100.100.200/', '100.100.100.200 is a cloud metadata address'],
      ['http://[::ffff:a83f:8110]/', '(168.63.129.16) is a cloud metadata address'],
      // Local backends are allowed here (tests), the controller's own ports never.
      [
        `http://127.1:${controller.healthzPort}/metrics`,
        `127.0.0.1:${controller.healthzPort} is a port of the gateway itself`,
      ],
    ] as const) {
      const answer = await callWebhook(review(withAuthUrl('metadata-auth', url)));
      expect({ url, allowed: answer.body.response?.allowed }).toEqual({ url, allowed: false });
      expect(answer.body.response?.status?.message).toContain(reason);
    }
  });

  it('judges a configuration-snippet by the directives --allow-snippet-directives allows', async () => {
    const withSnippet = (name: string, snippet: string) =>
      ingressManifest(name, {
        host: `${name}.test`,
        service: 'alpha',
        className: 'nginx',
        annotations: { 'nginx.ingress.kubernetes.io/configuration-snippet': snippet },
      });
    const allowed = await callWebhook(review(withSnippet('vetted', 'add_header X-Vetted yes;')));
    expect(allowed.body.response?.allowed).toBe(true);
    const refused = await callWebhook(review(withSnippet('unvetted', 'more_set_headers "X-A: 1";')));
    expect(refused.body.response?.allowed).toBe(false);
    expect(refused.body.response?.status?.message).toContain(
      'line 1, directive "more_set_headers": it is not allowed by the controller\'s --allow-snippet-directives',
    );
  });

  it('refuses a regex path nginx would read differently from the reference router', async () => {
    const answer = await callWebhook(
      review(
        withRegexPath(
          ingressManifest('regex', {
            host: 'regex.test',
            service: 'alpha',
            className: 'nginx',
            path: '/[[:alpha:]]+',
            annotations: { 'nginx.ingress.kubernetes.io/use-regex': 'true' },
          }),
        ),
      ),
    );
    expect(answer.body.response?.allowed).toBe(false);
    expect(answer.body.response?.status?.message).toContain(
      'spec.rules[0].http.paths[0].path: regex path may not hold an unescaped "["',
    );
  });

  it("refuses another namespace's Ingress on a host that belongs to the owner's namespace, as the controller would", async () => {
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mallory' } },
      ingressManifest('store', {
        namespace: 'shop',
        host: 'owned.test',
        service: 'alpha',
        className: 'nginx',
      }),
    ]);
    await eventually(() => expect(controller.routing.contributionOf('shop/store')).toBeDefined());
    const grab = ingressManifest('grab', {
      namespace: 'mallory',
      host: 'owned.test',
      service: 'alpha',
      className: 'nginx',
      path: '/admin',
    });
    const answer = await callWebhook(review(grab));
    expect(answer.body.response?.allowed).toBe(false);
    const message = answer.body.response?.status?.message ?? '';
    expect(message).toContain(
      'spec: host owned.test belongs to namespace shop, whose Ingress shop/store is the oldest to name it',
    );
    // The owner's namespace may add to its own host.
    const more = ingressManifest('more', {
      namespace: 'shop',
      host: 'owned.test',
      service: 'alpha',
      className: 'nginx',
      path: '/more',
    });
    expect((await callWebhook(review(more))).body.response?.allowed).toBe(true);
    // Stored anyway (no webhook in the way), the controller reports the same line. Creation
    // timestamps have second precision: stored in the same second, the name would break the tie.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await server.apply(grab);
    await eventually(async () => {
      const response = await fetch(`http://127.0.0.1:${controller.healthzPort}/explain?ingress=mallory/grab`);
      const body = (await response.json()) as { problems: { field: string; message: string }[] };
      expect(body.problems.map((problem) => `${problem.field}: ${problem.message}`)).toContain(
        message.split('\n').find((line) => line.startsWith('spec: host owned.test')),
      );
    });
  });

  it("refuses another namespace's rule, alias and TLS host under a wildcard the owner's namespace holds", async () => {
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mallory' } },
      ingressManifest('wild', {
        namespace: 'shop',
        host: '*.wild.test',
        service: 'alpha',
        className: 'nginx',
      }),
      tlsSecretManifest('wild-tls', 'shop.wild.test', 'mallory'),
    ]);
    // The store holds no data of a Secret nothing references: the webhook reads it when asked.
    await eventually(() => expect(controller.routing.contributionOf('shop/wild')).toBeDefined());
    const owner =
      'belongs to namespace shop, whose Ingress shop/wild is the oldest to name it (through its wildcard *.wild.test)';
    const refusal = async (ingress: Record<string, unknown>) => {
      const answer = await callWebhook(review(ingress));
      return answer.body.response?.allowed === true
        ? 'allowed'
        : (answer.body.response?.status?.message ?? '');
    };
    const mallory = (name: string, host: string, extra: Record<string, unknown> = {}) => {
      const ingress = ingressManifest(name, {
        namespace: 'mallory',
        host,
        service: 'alpha',
        className: 'nginx',
      });
      Object.assign(ingress.metadata as Record<string, unknown>, extra);
      return ingress;
    };
    expect(await refusal(mallory('rule', 'pay.wild.test'))).toContain(`spec: host pay.wild.test ${owner}`);
    const alias = mallory('alias', 'mallory.test', {
      annotations: { 'nginx.ingress.kubernetes.io/server-alias': 'cart.wild.test' },
    });
    expect(await refusal(alias)).toContain(`spec: host cart.wild.test ${owner}`);
    const tls = mallory('tls', 'mallory.test');
    (tls.spec as Record<string, unknown>).tls = [{ hosts: ['shop.wild.test'], secretName: 'wild-tls' }];
    expect(await refusal(tls)).toContain(`spec: host shop.wild.test ${owner}`);
    // A one-label wildcard covers no deeper name; a wildcard of its own takes no name the owner holds.
    expect(await refusal(mallory('deeper', 'a.b.wild.test'))).toBe('allowed');
    expect(await refusal(mallory('wider', '*.test'))).toBe('allowed');
    // An Ingress older than the wildcard keeps its host, as the controller decides by age.
    const older = mallory('older', 'old.wild.test', { creationTimestamp: '2001-01-01T00:00:00Z' });
    expect(await refusal(older)).toBe('allowed');
  });

  it('refuses an Ingress whose regex paths would take its host past --max-regex-matches-per-request', async () => {
    // Each path alone fills more than half a group of regex paths matched together: one group each.
    const regexIngress = (name: string, paths: string[]) => {
      const ingress = regexIngressManifest(name, {
        host: 'regex-budget.test',
        service: 'alpha',
        className: 'nginx',
        path: paths[0]!,
      });
      const rule = (ingress.spec as { rules: { http: { paths: Record<string, unknown>[] } }[] }).rules[0]!;
      rule.http.paths = paths.map((path) => ({ ...rule.http.paths[0], path }));
      return ingress;
    };
    await server.apply([regexIngress('regex-old', ['/(?:[a-z][0-9]){300}a', '/(?:[a-z][0-9]){300}b'])]);
    await eventually(() => expect(controller.routing.contributionOf('default/regex-old')).toBeDefined());
    const answer = await callWebhook(review(regexIngress('regex-new', ['/(?:[a-z][0-9]){300}c'])));
    expect(answer.body.response?.allowed).toBe(false);
    expect(answer.body.response?.status?.message).toContain(
      'spec: host regex-budget.test: its regex paths and conditions would need up to 3 regex matches per request (3 to choose a route, 0 for the chosen one), more than the 2 this controller runs',
    );
    // A path that fits beside the older ones (in the second group) passes.
    expect((await callWebhook(review(regexIngress('regex-small', ['/small'])))).body.response?.allowed).toBe(
      true,
    );
  });

  it('allows an Ingress whose TLS Secret does not exist yet, with a warning: it may be applied next', async () => {
    const ingress = ingressManifest('tls-later', {
      host: 'later.test',
      service: 'alpha',
      className: 'nginx',
    });
    (ingress.spec as Record<string, unknown>).tls = [{ hosts: ['later.test'], secretName: 'later-tls' }];
    const answer = await callWebhook(review(ingress));
    expect(answer.body.response?.allowed).toBe(true);
    expect(answer.body.response?.warnings).toEqual([
      'spec.tls[0].secretName: TLS Secret default/later-tls: not found; its hosts are served without TLS',
    ]);
  });

  it('reads a TLS Secret no Ingress referenced before, which the store does not hold, to judge the first', async () => {
    await server.apply(tlsSecretManifest('early-tls', 'early.test'));
    await eventually(() => expect(controller.store?.secretStats().notHeld).toBeGreaterThan(0));
    expect(controller.store?.snapshot().secrets.has('default/early-tls')).toBe(false);
    const ingress = ingressManifest('tls-early', {
      host: 'early.test',
      service: 'alpha',
      className: 'nginx',
    });
    (ingress.spec as Record<string, unknown>).tls = [{ hosts: ['early.test'], secretName: 'early-tls' }];
    const answer = await callWebhook(review(ingress));
    expect(answer.body.response?.allowed).toBe(true);
    expect(answer.body.response?.warnings).toBeUndefined();
  });

  it('allows a global-rate-limit before the ConfigMap names its memcached, with a warning', async () => {
    const ingress = ingressManifest('global-limit', {
      host: 'global.test',
      service: 'alpha',
      className: 'nginx',
      annotations: {
        'nginx.ingress.kubernetes.io/global-rate-limit': '10',
        'nginx.ingress.kubernetes.io/global-rate-limit-window': '1m',
      },
    });
    const before = await callWebhook(review(ingress));
    expect(before.body.response?.allowed).toBe(true);
    expect(before.body.response?.warnings).toEqual([
      expect.stringContaining('needs the controller ConfigMap key global-rate-limit-memcached-host'),
    ]);
    await server.apply([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'ingresskit', name: 'ingresskit-controller' },
        data: { 'global-rate-limit-memcached-host': '127.0.0.1' },
      },
    ]);
    await eventually(async () => {
      const after = await callWebhook(review(ingress));
      expect(after.body.response).toMatchObject({ allowed: true });
      expect(after.body.response?.warnings).toBeUndefined();
    });
  });

  it("leaves another controller's Ingresses and every deletion alone", async () => {
    const foreign = ingressManifest('foreign', {
      host: 'foreign.test',
      service: 'alpha',
      className: 'someone-else',
      annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': 'nonsense' },
    });
    expect((await callWebhook(review(foreign))).body.response).toMatchObject({ allowed: true });
    expect((await callWebhook(review(foreign))).body.response?.warnings).toBeUndefined();
    const broken = ingressManifest('gone', {
      host: 'gone.test',
      service: 'alpha',
      className: 'nginx',
      annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': 'nonsense' },
    });
    expect((await callWebhook(review(broken, 'DELETE'))).body.response).toMatchObject({ allowed: true });
  });

  it('answers 400 to a body that is not an AdmissionReview, 405 to GET and 404 elsewhere', async () => {
    expect((await callWebhook('{"kind":"Ingress"}')).status).toBe(400);
    expect((await callWebhook('not json')).status).toBe(400);
    expect((await callWebhook({}, { method: 'GET' })).status).toBe(405);
    expect(
      (await callWebhook(review(ingressManifest('x', { host: 'x.test', service: 'alpha' })), { path: '/' }))
        .status,
    ).toBe(404);
  });

  it("refuses what the controller ConfigMap's Ingress checks leave out, as ingress-nginx's webhook does", async () => {
    const tilde = ingressManifest('tilde', {
      host: 'tilde.test',
      service: 'alpha',
      className: 'nginx',
      path: '/~user',
    });
    const denied = await callWebhook(review(tilde));
    expect(denied.body.response?.allowed).toBe(false);
    expect(denied.body.response?.status?.message).toContain(
      'spec.rules[0].http.paths[0].path: path cannot be used with pathType Prefix',
    );
    const annotated = (name: string, annotations: Record<string, string>) =>
      ingressManifest(name, { host: `${name}.test`, service: 'alpha', className: 'nginx', annotations });
    const blocked = annotated('blocked', { 'nginx.ingress.kubernetes.io/upstream-vhost': 'pwned.test' });
    const risky = annotated('risky', { 'nginx.ingress.kubernetes.io/server-alias': 'other.test' });
    expect((await callWebhook(review(blocked))).body.response?.allowed).toBe(true);
    expect((await callWebhook(review(risky))).body.response?.allowed).toBe(true);
    await server.apply([
      controllerConfigMapManifest({
        'global-rate-limit-memcached-host': '127.0.0.1',
        'strict-validate-path-type': 'false',
        'annotation-value-word-blocklist': 'pwned',
        'annotations-risk-level': 'Medium',
      }),
    ]);
    await eventually(async () => {
      expect((await callWebhook(review(tilde))).body.response).toMatchObject({ allowed: true });
      const words = await callWebhook(review(blocked));
      expect(words.body.response?.allowed).toBe(false);
      expect(words.body.response?.status?.message).toContain(
        'annotation "nginx.ingress.kubernetes.io/upstream-vhost" holds "pwned"',
      );
      const risk = await callWebhook(review(risky));
      expect(risk.body.response?.allowed).toBe(false);
      expect(risk.body.response?.status?.message).toContain(
        'annotation "nginx.ingress.kubernetes.io/server-alias" is of risk High',
      );
    });
  });
});
