import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApiServer, type LocalApiServer } from './server.js';

/** Parsed JSON, typed as loosely as JSON.parse types it. */
type Json = ReturnType<typeof JSON.parse>;

let server: LocalApiServer;

beforeAll(async () => {
  server = await startLocalApiServer({ bookmarkIntervalMs: 50, watchTimeoutSeconds: 30 });
});

afterAll(async () => {
  await server.stop();
});

async function getJson(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; type: string | null; body: Json }> {
  const response = await fetch(`${server.url}${path}`, init);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
}

async function send(method: string, path: string, body: unknown, contentType = 'application/json') {
  return getJson(path, { method, headers: { 'Content-Type': contentType }, body: JSON.stringify(body) });
}

/** Reads a watch stream line by line until `done` says so or the server closes it. */
async function readWatch(path: string, done: (events: Json[]) => boolean, signal?: AbortSignal) {
  const controller = new AbortController();
  const response = await fetch(`${server.url}${path}`, { signal: signal ?? controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: Json[] = [];
  let buffer = '';
  let closed = false;
  while (!done(events)) {
    const chunk = await reader.read();
    if (chunk.done) {
      closed = true;
      break;
    }
    buffer += decoder.decode(chunk.value, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      events.push(JSON.parse(buffer.slice(0, newline)));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
    }
  }
  if (!closed) controller.abort();
  return { status: response.status, type: response.headers.get('content-type'), events, closed };
}

describe('startLocalApiServer over plain HTTP', () => {
  it('serves /version and the discovery documents', async () => {
    const version = await getJson('/version');
    expect(version.body).toMatchObject({
      major: '1',
      minor: '32',
      gitVersion: 'v1.32.0',
      platform: 'linux/amd64',
    });
    expect(version.type).toBe('application/json');
    expect((await getJson('/api')).body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const groups = (await getJson('/apis')).body;
    expect(groups.kind).toBe('APIGroupList');
    expect(groups.groups.map((group: { name: string }) => group.name)).toEqual([
      'discovery.k8s.io',
      'networking.k8s.io',
      'coordination.k8s.io',
      'events.k8s.io',
      'rbac.authorization.k8s.io',
      'apps',
      'policy',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
    ]);
    const networking = (await getJson('/apis/networking.k8s.io/v1')).body;
    expect(networking).toMatchObject({ kind: 'APIResourceList', groupVersion: 'networking.k8s.io/v1' });
    expect(networking.resources).toEqual(
      expect.arrayContaining([
        {
          name: 'ingresses',
          singularName: 'ingress',
          namespaced: true,
          kind: 'Ingress',
          verbs: expect.arrayContaining(['watch', 'patch']),
          shortNames: ['ing'],
        },
        {
          name: 'ingresses/status',
          singularName: '',
          namespaced: true,
          kind: 'Ingress',
          verbs: ['get', 'patch', 'update'],
        },
        expect.objectContaining({ name: 'ingressclasses', namespaced: false }),
      ]),
    );
    const core = (await getJson('/api/v1')).body;
    expect(core.resources.map((resource: { name: string }) => resource.name)).toEqual(
      expect.arrayContaining([
        'namespaces',
        'services',
        'endpoints',
        'secrets',
        'configmaps',
        'pods',
        'nodes',
        'events',
      ]),
    );
    expect((await getJson('/apis/networking.k8s.io')).body).toMatchObject({
      kind: 'APIGroup',
      preferredVersion: { groupVersion: 'networking.k8s.io/v1' },
    });
  });

  it('adds a CRD group to discovery when the CRD is created', async () => {
    await server.apply({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'things', kind: 'Thing', shortNames: ['th'] },
        versions: [
          { name: 'v1alpha1', served: true, storage: false },
          { name: 'v1', served: true, storage: true, subresources: { status: {} } },
        ],
      },
    });
    const group = (await getJson('/apis/example.com')).body;
    expect(group.versions.map((version: { version: string }) => version.version)).toEqual(['v1', 'v1alpha1']);
    const resources = (await getJson('/apis/example.com/v1')).body.resources;
    expect(resources.map((resource: { name: string }) => resource.name)).toEqual(['things', 'things/status']);
    const alpha = (await getJson('/apis/example.com/v1alpha1')).body.resources;
    expect(alpha.map((resource: { name: string }) => resource.name)).toEqual(['things']);
  });

  it('answers unknown paths, protobuf-only clients and bad verbs with Status objects', async () => {
    expect(await getJson('/apis/nope.example.com/v1/widgets')).toMatchObject({
      status: 404,
      type: 'application/json',
      body: {
        kind: 'Status',
        status: 'Failure',
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
        code: 404,
      },
    });
    expect(
      (await getJson('/api/v1/pods', { headers: { Accept: 'application/vnd.kubernetes.protobuf' } })).status,
    ).toBe(406);
    expect(
      (
        await getJson('/api/v1/pods', {
          headers: { Accept: 'application/vnd.kubernetes.protobuf, application/json' },
        })
      ).status,
    ).toBe(200);
    expect((await send('POST', '/api/v1/configmaps', { metadata: { name: 'x' } })).status).toBe(405);
    expect(
      (await send('PUT', '/api/v1/namespaces/default/configmaps/missing', { metadata: { name: 'missing' } }))
        .status,
    ).toBe(404);
    expect(
      (await send('PUT', '/api/v1/namespaces/default/configmaps/a', { metadata: { name: 'b' } })).body,
    ).toMatchObject({
      code: 400,
      message: 'the name of the object (b) does not match the name on the URL (a)',
    });
    expect(
      (await send('PATCH', '/api/v1/namespaces/default/configmaps/a', {}, 'application/json')).status,
    ).toBe(415);
    expect((await send('POST', '/api/v1/namespaces/default/configmaps', '{not json')).status).toBe(400);
  });

  it('does not store dry-run creates, and deletes collections by selector', async () => {
    const dry = await send('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', {
      metadata: { name: 'dry' },
    });
    expect(dry.status).toBe(201);
    expect((await getJson('/api/v1/namespaces/default/configmaps/dry')).status).toBe(404);
    for (const name of ['g1', 'g2', 'g3']) {
      await send('POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name, labels: { group: name === 'g3' ? 'b' : 'a' } },
      });
    }
    const deleted = await getJson('/api/v1/namespaces/default/configmaps?labelSelector=group%3Da', {
      method: 'DELETE',
    });
    expect(deleted.body.items.map((item: Json) => item.metadata.name)).toEqual(['g1', 'g2']);
    const left = await getJson('/api/v1/namespaces/default/configmaps?labelSelector=group');
    expect(left.body.items.map((item: Json) => item.metadata.name)).toEqual(['g3']);
  });

  it('answers PartialObjectMetadata lists and gets, paged, and reads one object by its name', async () => {
    for (const name of ['m1', 'm2', 'm3']) {
      await send('POST', '/api/v1/namespaces/default/secrets', {
        metadata: { name, labels: { set: 'metadata' } },
        data: { value: 'c2VjcmV0' },
      });
    }
    const accept = {
      Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    };
    const first = await getJson('/api/v1/namespaces/default/secrets?labelSelector=set%3Dmetadata&limit=2', {
      headers: accept,
    });
    expect(first.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' });
    expect(first.body.items).toEqual([
      expect.objectContaining({
        kind: 'PartialObjectMetadata',
        metadata: expect.objectContaining({ name: 'm1' }),
      }),
      expect.objectContaining({ metadata: expect.objectContaining({ name: 'm2' }) }),
    ]);
    expect(first.body.items.some((item: Json) => 'data' in item)).toBe(false);
    const rest = await getJson(
      `/api/v1/namespaces/default/secrets?labelSelector=set%3Dmetadata&limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`,
      { headers: accept },
    );
    expect(rest.body.items.map((item: Json) => item.metadata.name)).toEqual(['m3']);
    const one = await getJson('/api/v1/namespaces/default/secrets/m2', {
      headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' },
    });
    expect(one.body).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: expect.any(Object),
    });
    const byName = await getJson('/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dm2');
    expect(byName.body.items.map((item: Json) => [item.metadata.name, item.data.value])).toEqual([
      ['m2', 'c2VjcmV0'],
    ]);
    const missing = await getJson('/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dm9');
    expect(missing.body.items).toEqual([]);
  });

  it('flushes watch headers before any event and streams one JSON event per line', async () => {
    const list = await getJson('/api/v1/namespaces/default/secrets');
    const controller = new AbortController();
    const response = await fetch(
      `${server.url}/api/v1/namespaces/default/secrets?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`,
      {
        signal: controller.signal,
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    controller.abort();

    const watching = readWatch(
      `/api/v1/namespaces/default/secrets?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`,
      (events) => events.length >= 3,
    );
    await waitForWatches(1);
    await send('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's' }, data: {} });
    await send(
      'PATCH',
      '/api/v1/namespaces/default/secrets/s',
      { data: { k: 'dg==' } },
      'application/merge-patch+json',
    );
    const deleted = await getJson('/api/v1/namespaces/default/secrets/s', { method: 'DELETE' });
    const { events } = await watching;
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[2].object.metadata.resourceVersion).not.toBe(events[1].object.metadata.resourceVersion);
    expect(deleted.body).toMatchObject({ status: 'Success', details: { name: 's', kind: 'secrets' } });
  });

  it('starts a watch from "0" with the current objects and supports the legacy /watch/ prefix', async () => {
    await send('POST', '/api/v1/nodes', {
      metadata: { name: 'node-1' },
      status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
    });
    const { events } = await readWatch('/api/v1/watch/nodes?resourceVersion=0', (seen) => seen.length >= 1);
    expect(events[0]).toMatchObject({
      type: 'ADDED',
      object: {
        kind: 'Node',
        metadata: { name: 'node-1' },
        status: { addresses: [{ address: '10.0.0.1' }] },
      },
    });
  });

  it('sends BOOKMARK events only when asked', async () => {
    const { events } = await readWatch(
      '/api/v1/namespaces/default/endpoints?watch=true&allowWatchBookmarks=true&resourceVersion=0',
      (seen) => seen.length >= 1,
    );
    expect(events[0]).toEqual({
      type: 'BOOKMARK',
      object: {
        kind: 'Endpoints',
        apiVersion: 'v1',
        metadata: { resourceVersion: server.stats().resourceVersion },
      },
    });
  });

  it('closes the stream cleanly after timeoutSeconds', async () => {
    const { closed, events } = await readWatch(
      '/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1',
      () => false,
    );
    expect(closed).toBe(true);
    expect(events).toEqual([]);
  });

  it('answers a too-old resourceVersion with HTTP 200, one ERROR event, then EOF', async () => {
    const old = server.stats().resourceVersion;
    server.faults.expireHistory();
    const { status, events, closed } = await readWatch(
      `/api/v1/configmaps?watch=true&resourceVersion=${old}`,
      () => false,
    );
    expect(status).toBe(200);
    expect(closed).toBe(true);
    expect(events).toEqual([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${old} (${Number(old) + 1})`,
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
  });

  it('rejects sendInitialEvents and malformed selectors with 400', async () => {
    const initial = await getJson(
      '/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    expect(initial).toMatchObject({ status: 400, body: { reason: 'BadRequest' } });
    expect((await getJson('/api/v1/configmaps?watch=true&labelSelector=a%20in%20b')).status).toBe(400);
    expect((await getJson('/api/v1/configmaps?watch=true&fieldSelector=data.x%3D1')).body).toMatchObject({
      message: 'field label not supported: data.x',
    });
  });

  it('fails exactly the next matching requests with the chosen status, then serves normally', async () => {
    server.faults.failNext(2, 503, { match: { path: '/api/v1/namespaces/default/services' } });
    expect(await getJson('/api/v1/namespaces/default/configmaps')).toMatchObject({ status: 200 });
    expect(await getJson('/api/v1/namespaces/default/services')).toMatchObject({
      status: 503,
      body: { kind: 'Status', reason: 'ServiceUnavailable', code: 503 },
    });
    expect((await getJson('/api/v1/namespaces/default/services')).status).toBe(503);
    expect((await getJson('/api/v1/namespaces/default/services')).status).toBe(200);
  });

  it('keeps stored data intact across faults', async () => {
    await send('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'durable' },
      data: { v: '1' },
    });
    const before = (await getJson('/api/v1/namespaces/default/configmaps/durable')).body;
    server.faults.expireHistory();
    server.faults.dropWatches();
    server.faults.failNext(1, 500);
    expect((await getJson('/api/v1/namespaces/default/configmaps/durable')).status).toBe(500);
    await server.faults.pause();
    await server.faults.resume();
    expect((await getJson('/api/v1/namespaces/default/configmaps/durable')).body).toEqual(before);
  });
});

async function waitForWatches(count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (server.stats().activeWatches < count) {
    if (Date.now() > deadline) throw new Error('watch did not start');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
