import { afterEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  type Harness,
  ingress,
  namespace,
  secret,
  service,
  waitFor,
} from '../test/harness.js';
import { KubeConfig } from '@kubernetes/client-node';
import type { ResourceClient } from './api-client.js';
import { StoreConfigError } from './errors.js';
import { createStore } from './store.js';

const unusedClient: ResourceClient = {
  list: () => Promise.reject(new Error('not called')),
  watch: () => {
    throw new Error('not called');
  },
};

let harness: Harness | undefined;

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

function inNamespace(ns: string): object[] {
  return [
    service(ns, 'web'),
    secret(ns, 'cert', 'kubernetes.io/tls'),
    secret(ns, 'auth'),
    ingress(ns, 'front', {
      tlsSecret: 'cert',
      annotations: { 'nginx.ingress.kubernetes.io/auth-secret': 'auth' },
    }),
  ];
}

describe('createStore namespaceSelector', () => {
  it('keeps only the objects of namespaces whose labels match, and follows relabelling', async () => {
    const h = (harness = await createHarness({ namespaceSelector: 'team in (a),!legacy' }));
    await h.apply([
      namespace('shop', { team: 'a' }),
      namespace('blog', { team: 'b' }),
      ...inNamespace('shop'),
      ...inNamespace('blog'),
    ]);
    await h.store.start();
    const ingressKeys = () => [...h.store.snapshot().ingresses.keys()].sort();
    expect(ingressKeys()).toEqual(['shop/front']);
    expect([...h.store.snapshot().services.keys()]).toEqual(['shop/web']);
    expect([...h.store.snapshot().secrets.keys()].sort()).toEqual(['shop/auth', 'shop/cert']);
    // Namespaces themselves are mirrored, matching or not.
    expect([...h.store.snapshot().namespaces.keys()]).toEqual(expect.arrayContaining(['blog', 'shop']));

    // blog starts matching: its objects appear, each with an added event, the referenced Opaque
    // Secret read again.
    const before = h.recorder.events.length;
    await h.apply(namespace('blog', { team: 'a' }));
    await waitFor(() => h.store.snapshot().secrets.has('blog/auth'), 'blog/auth to appear');
    expect(ingressKeys()).toEqual(['blog/front', 'shop/front']);
    const appeared = h.recorder.events
      .slice(before)
      .filter((event) => event.key.startsWith('blog/'))
      .map((event) => `${event.type} ${event.kind} ${event.key}`)
      .sort();
    expect(appeared).toEqual([
      'added Ingress blog/front',
      'added Secret blog/auth',
      'added Secret blog/cert',
      'added Service blog/web',
    ]);

    // An edit while matching is followed as usual (and blog/auth and blog/cert, no longer
    // referenced, leave).
    await h.apply(ingress('blog', 'front', { defaultService: 'api' }));
    await waitFor(
      () => h.store.snapshot().ingresses.get('blog/front')?.spec?.defaultBackend?.service?.name === 'api',
      'the edit of blog/front',
    );

    // blog stops matching (a label the selector excludes): every object of blog leaves, with a
    // deleted event; an edit while it does not match stays out.
    const beforeRemoval = h.recorder.events.length;
    await h.apply(namespace('blog', { team: 'a', legacy: 'true' }));
    await waitFor(() => !h.store.snapshot().ingresses.has('blog/front'), 'blog/front to leave');
    await waitFor(() => h.store.snapshot().secrets.size === 2, 'blog Secrets to leave');
    expect(
      h.recorder.events
        .slice(beforeRemoval)
        .map((event) => `${event.type} ${event.kind} ${event.key}`)
        .sort(),
    ).toEqual(['deleted Ingress blog/front', 'deleted Service blog/web', 'updated Namespace blog']);
    await h.apply(ingress('blog', 'back', { service: 'web' }));
    await h.apply(ingress('shop', 'back', { service: 'web' }));
    await waitFor(() => h.store.snapshot().ingresses.has('shop/back'), 'shop/back to appear');
    expect(ingressKeys()).toEqual(['shop/back', 'shop/front']);

    // Matching again shows the objects as they are now, including the one created meanwhile.
    await h.apply(namespace('blog', { team: 'a' }));
    await waitFor(() => h.store.snapshot().ingresses.has('blog/back'), 'blog/back to appear');
    expect(ingressKeys()).toEqual(['blog/back', 'blog/front', 'shop/back', 'shop/front']);
    expect(h.store.snapshot().ingresses.get('blog/front')?.spec?.defaultBackend?.service?.name).toBe('api');

    // Deleting the namespace's objects while it is hidden, then the namespace, leaves nothing behind.
    await h.apply(namespace('blog', { team: 'b' }));
    await h.remove('Ingress', 'blog/back');
    await h.apply(namespace('blog', { team: 'a' }));
    await waitFor(() => h.store.snapshot().ingresses.has('blog/front'), 'blog/front to reappear');
    expect(ingressKeys()).toEqual(['blog/front', 'shop/back', 'shop/front']);
    expect(h.recorder.replay().problems).toEqual([]);
    expect(h.errors).toEqual([]);
  });

  it('filters only the kinds named in namespaceSelectorKinds', async () => {
    const h = (harness = await createHarness({
      namespaceSelector: 'team=a',
      namespaceSelectorKinds: ['Ingress'],
    }));
    await h.apply([namespace('blog', { team: 'b' }), ...inNamespace('blog')]);
    await h.store.start();
    expect(h.store.snapshot().ingresses.size).toBe(0);
    expect([...h.store.snapshot().services.keys()]).toEqual(['blog/web']);
    // Secrets are not filtered, but only an Ingress in the snapshot makes them wanted.
    expect([...h.store.snapshot().secrets.keys()]).toEqual([]);
    expect(h.store.secretStats()).toMatchObject({ held: 0, notHeld: 2 });
  });

  it('throws StoreConfigError naming the option when the selector does not parse', () => {
    const create = () =>
      createStore(new KubeConfig(), { namespaceSelector: 'team in a', client: unusedClient });
    expect(create).toThrow(StoreConfigError);
    expect(create).toThrow(/namespaceSelector/);
  });
});
