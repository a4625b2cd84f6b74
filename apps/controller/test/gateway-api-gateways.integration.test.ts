/**
 * Gateways themselves, end to end: listener statuses (supported kinds, attached routes, TLS
 * references and ReferenceGrants, unsupported protocols and parameters), listeners added and
 * removed, listener isolation, and GatewayClass generations, read back from the API server, with
 * real HTTP through nginx where a Gateway serves something. Each `describe` ports the scenario of
 * the upstream conformance test it is named after (behaviour only). As in
 * gateway-api.integration.test.ts, every Gateway here shares one nginx, so listeners that upstream
 * leaves without a hostname get one of their own (only GatewayHTTPListenerIsolation needs a
 * listener for every hostname, and it has the only one).
 */
import { describe, expect, it } from 'vitest';
import {
  answer,
  api,
  APP,
  condition,
  CONTROLLER_NAME,
  controller,
  expectAnswers,
  expectRouteConditions,
  gateway,
  GROUP,
  httpListener,
  httpRoute,
  INFRA,
  readGateway,
  rule,
  send,
  server,
  useGatewayApiCase,
  WEB,
  type Condition,
  type GatewayObject,
} from './gateway-api.js';
import { eventually, presentedCertificate, tlsSecretManifest } from './harness.js';

useGatewayApiCase();

const HTTP_ROUTE = `${GROUP}/HTTPRoute`;

/**
 * What a listener's status must hold: its supported kinds (`group/kind`), its attached routes, and
 * conditions by type, each `Status/Reason` or only `Status` when any reason will do.
 */
interface ExpectedListener {
  name: string;
  kinds: string[];
  attachedRoutes: number;
  conditions: Record<string, string>;
}

/** What a condition is, in the form ExpectedListener asks for it. */
function describeCondition(conditions: readonly Condition[] | undefined, type: string, asked: string) {
  const found = condition(conditions, type);
  if (found === undefined) return 'missing';
  return asked.includes('/') ? `${found.status}/${found.reason}` : found.status;
}

/**
 * Waits until the Gateway's conditions are of its latest generation and its listeners are exactly
 * these (any order), as upstream's GatewayStatusMustHaveListeners reads them; returns the Gateway.
 */
async function expectListeners(name: string, expected: ExpectedListener[]): Promise<GatewayObject> {
  return eventually(async () => {
    const object = await readGateway(INFRA, name);
    const conditions = object.status?.conditions ?? [];
    expect(conditions.length).toBeGreaterThan(0);
    for (const entry of conditions) expect(entry.observedGeneration).toBe(object.metadata.generation);
    const listeners = (object.status?.listeners ?? []) as {
      name: string;
      attachedRoutes: number;
      conditions: Condition[];
      supportedKinds?: { group?: string; kind: string }[];
    }[];
    const actual = expected.map((want) => {
      const listener = listeners.find((entry) => entry.name === want.name);
      if (listener === undefined) return { name: want.name, missing: true };
      return {
        name: listener.name,
        kinds: (listener.supportedKinds ?? []).map((kind) => `${kind.group ?? GROUP}/${kind.kind}`),
        attachedRoutes: listener.attachedRoutes,
        conditions: Object.fromEntries(
          Object.entries(want.conditions).map(([type, asked]) => [
            type,
            describeCondition(listener.conditions, type, asked),
          ]),
        ),
      };
    });
    expect(actual).toEqual(expected);
    expect(listeners.map((listener) => listener.name).sort()).toEqual(expected.map((e) => e.name).sort());
    return object;
  });
}

/** Waits until the Gateway's condition `type` is `Status/Reason`, of the latest generation. */
async function expectGatewayCondition(name: string, type: string, value: string): Promise<void> {
  await eventually(async () => {
    const object = await readGateway(INFRA, name);
    const found = condition(object.status?.conditions, type);
    expect(`${found?.status}/${found?.reason}`).toBe(value);
    expect(found?.observedGeneration).toBe(object.metadata.generation);
  });
}

/** An HTTPS listener on 443 for `hostname` with these certificate references. */
function httpsListener(
  name: string,
  hostname: string,
  certificateRefs: Record<string, unknown>[],
): Record<string, unknown> {
  return {
    name,
    port: 443,
    protocol: 'HTTPS',
    hostname,
    allowedRoutes: { namespaces: { from: 'All' } },
    tls: { mode: 'Terminate', certificateRefs },
  };
}

/** A manifest with these fields added to its spec. */
function withSpec(
  manifest: Record<string, unknown>,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  return { ...manifest, spec: { ...(manifest.spec as Record<string, unknown>), ...fields } };
}

/** A ReferenceGrant in `namespace` from `from` to `to`. */
function referenceGrant(
  name: string,
  namespace: string,
  from: Record<string, unknown>,
  to: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'ReferenceGrant',
    metadata: { name, namespace },
    spec: { from: [from], to: [to] },
  };
}

const GATEWAYS_OF_INFRA = { group: GROUP, kind: 'Gateway', namespace: INFRA };

/** Waits until a TLS handshake for `hostname` presents the certificate made for it. */
async function expectCertificateFor(hostname: string): Promise<void> {
  await eventually(async () =>
    expect((await presentedCertificate(controller, hostname)).subject.CN).toBe(hostname),
  );
}

describe('GatewayInvalidRouteKind', () => {
  it('reports InvalidRouteKinds, lists only the kinds it serves, and attaches no route without one', async () => {
    const kinds = (list: string[]) => ({
      namespaces: { from: 'All' },
      kinds: list.map((kind) => ({ kind })),
    });
    await server.apply([
      gateway('gateway-only-invalid-route-kind', [
        httpListener('http', 'only-invalid.route-kind.test', kinds(['InvalidRoute'])),
      ]),
      gateway('gateway-supported-and-invalid-route-kind', [
        httpListener('http', 'supported.route-kind.test', kinds(['InvalidRoute', 'HTTPRoute'])),
      ]),
    ]);
    await expectListeners('gateway-only-invalid-route-kind', [
      {
        name: 'http',
        kinds: [],
        attachedRoutes: 0,
        conditions: { ResolvedRefs: 'False/InvalidRouteKinds' },
      },
    ]);
    await expectListeners('gateway-supported-and-invalid-route-kind', [
      {
        name: 'http',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 0,
        conditions: { ResolvedRefs: 'False/InvalidRouteKinds' },
      },
    ]);
    // What the kinds mean for routes: none attaches to the first, the HTTPRoute kind to the second.
    await server.apply([
      httpRoute('invalid-route-kind-only', {
        parentRefs: [{ name: 'gateway-only-invalid-route-kind' }],
        rules: [rule('infra-backend-v1')],
      }),
      httpRoute('invalid-route-kind-supported', {
        parentRefs: [{ name: 'gateway-supported-and-invalid-route-kind' }],
        rules: [rule('infra-backend-v2')],
      }),
    ]);
    await expectRouteConditions(INFRA, 'invalid-route-kind-only', 'gateway-only-invalid-route-kind', {
      Accepted: 'False/NotAllowedByListeners',
    });
    await expectAnswers([
      ['supported.route-kind.test', '/', 'infra-backend-v2'],
      ['only-invalid.route-kind.test', '/', '404'],
    ]);
    await expectListeners('gateway-supported-and-invalid-route-kind', [
      {
        name: 'http',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 1,
        conditions: { ResolvedRefs: 'False/InvalidRouteKinds' },
      },
    ]);
  });
});

describe('GatewayInvalidTLSConfiguration', () => {
  it('reports InvalidCertificateRef for a missing Secret, another group or kind, and a malformed Secret', async () => {
    await server.apply([
      tlsSecretManifest('tls-validity-certificate', 'valid.tls-config.test', INFRA),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'tls-malformed-certificate', namespace: INFRA },
        type: 'kubernetes.io/tls',
        // Not PEM, and the same bytes as certificate and key.
        data: {
          'tls.crt': Buffer.from('not a certificate\n').toString('base64'),
          'tls.key': Buffer.from('not a certificate\n').toString('base64'),
        },
      },
      gateway('gateway-certificate-nonexistent-secret', [
        httpsListener('https', 'nonexistent.tls-config.test', [
          { group: '', kind: 'Secret', name: 'no-such-certificate' },
        ]),
      ]),
      gateway('gateway-certificate-unsupported-group', [
        httpsListener('https', 'group.tls-config.test', [
          { group: 'wrong.group.example.io', kind: 'Secret', name: 'tls-validity-certificate' },
        ]),
      ]),
      gateway('gateway-certificate-unsupported-kind', [
        httpsListener('https', 'kind.tls-config.test', [
          { group: '', kind: 'WrongKind', name: 'tls-validity-certificate' },
        ]),
      ]),
      gateway('gateway-certificate-malformed-secret', [
        httpsListener('https', 'malformed.tls-config.test', [
          { group: '', kind: 'Secret', name: 'tls-malformed-certificate' },
        ]),
      ]),
    ]);
    for (const name of [
      'gateway-certificate-nonexistent-secret',
      'gateway-certificate-unsupported-group',
      'gateway-certificate-unsupported-kind',
      'gateway-certificate-malformed-secret',
    ]) {
      await expectListeners(name, [
        {
          name: 'https',
          kinds: [HTTP_ROUTE],
          attachedRoutes: 0,
          conditions: { ResolvedRefs: 'False/InvalidCertificateRef', Programmed: 'False' },
        },
      ]);
    }
  });
});

describe('GatewaySecretMissingReferenceGrant', () => {
  it('reports RefNotPermitted for a Secret of another namespace without a ReferenceGrant', async () => {
    await server.apply([
      tlsSecretManifest('missing-grant-certificate', 'missing-grant.secrets.test', WEB),
      gateway('gateway-secret-missing-reference-grant', [
        httpsListener('https', 'missing-grant.secrets.test', [
          { group: '', kind: 'Secret', name: 'missing-grant-certificate', namespace: WEB },
        ]),
      ]),
    ]);
    await expectListeners('gateway-secret-missing-reference-grant', [
      {
        name: 'https',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 0,
        conditions: { ResolvedRefs: 'False/RefNotPermitted', Programmed: 'False' },
      },
    ]);
    const presented = await presentedCertificate(controller, 'missing-grant.secrets.test');
    expect(presented.subject?.CN).not.toBe('missing-grant.secrets.test');
  });
});

describe('GatewaySecretInvalidReferenceGrant', () => {
  it('reports RefNotPermitted when every ReferenceGrant differs from the reference in one field', async () => {
    const secret = { group: '', kind: 'Secret', name: 'invalid-grant-certificate' };
    await server.apply([
      tlsSecretManifest('invalid-grant-certificate', 'invalid-grant.secrets.test', WEB),
      tlsSecretManifest('invalid-grant-certificate', 'invalid-grant.secrets.test', APP),
      referenceGrant('invalid-grant-wrong-namespace', APP, GATEWAYS_OF_INFRA, secret),
      referenceGrant(
        'invalid-grant-wrong-from-group',
        WEB,
        { ...GATEWAYS_OF_INFRA, group: 'not-the-group.example.io' },
        secret,
      ),
      referenceGrant(
        'invalid-grant-wrong-from-kind',
        WEB,
        { ...GATEWAYS_OF_INFRA, kind: 'HTTPRoute' },
        secret,
      ),
      referenceGrant(
        'invalid-grant-wrong-from-namespace',
        WEB,
        { ...GATEWAYS_OF_INFRA, namespace: 'not-the-namespace' },
        secret,
      ),
      referenceGrant('invalid-grant-wrong-to-group', WEB, GATEWAYS_OF_INFRA, {
        ...secret,
        group: 'not-the-group.example.io',
      }),
      referenceGrant('invalid-grant-wrong-to-kind', WEB, GATEWAYS_OF_INFRA, { ...secret, kind: 'Service' }),
      referenceGrant('invalid-grant-wrong-to-name', WEB, GATEWAYS_OF_INFRA, {
        ...secret,
        name: 'not-the-certificate',
      }),
      gateway('gateway-secret-invalid-reference-grant', [
        httpsListener('https', 'invalid-grant.secrets.test', [{ ...secret, namespace: WEB }]),
      ]),
    ]);
    await expectListeners('gateway-secret-invalid-reference-grant', [
      {
        name: 'https',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 0,
        conditions: { ResolvedRefs: 'False/RefNotPermitted', Programmed: 'False' },
      },
    ]);
  });
});

describe('GatewaySecretReferenceGrantAllInNamespace', () => {
  it('serves the certificate of a Secret that a ReferenceGrant for every Secret of its namespace allows', async () => {
    // A namespace of its own: a grant for all its Secrets must not allow the other scenarios' ones.
    const namespace = 'gateway-conformance-all-secrets';
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      tlsSecretManifest('certificate', 'all-in-namespace.secrets.test', namespace),
      referenceGrant('reference-grant-all-in-namespace', namespace, GATEWAYS_OF_INFRA, {
        group: '',
        kind: 'Secret',
      }),
      gateway('gateway-secret-reference-grant-all-in-namespace', [
        httpsListener('https', 'all-in-namespace.secrets.test', [
          { group: '', kind: 'Secret', name: 'certificate', namespace },
        ]),
      ]),
    ]);
    await expectListeners('gateway-secret-reference-grant-all-in-namespace', [
      {
        name: 'https',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 0,
        conditions: { Programmed: 'True/Programmed', ResolvedRefs: 'True' },
      },
    ]);
    await expectCertificateFor('all-in-namespace.secrets.test');
  });
});

describe('GatewaySecretReferenceGrantSpecific', () => {
  it('serves the certificate of a Secret that a ReferenceGrant names, and stops when the grant goes', async () => {
    await server.apply([
      tlsSecretManifest('specific-grant-certificate', 'specific-grant.secrets.test', WEB),
      referenceGrant('reference-grant-specific', WEB, GATEWAYS_OF_INFRA, {
        group: '',
        kind: 'Secret',
        name: 'specific-grant-certificate',
      }),
      gateway('gateway-secret-reference-grant-specific', [
        httpsListener('https', 'specific-grant.secrets.test', [
          { group: '', kind: 'Secret', name: 'specific-grant-certificate', namespace: WEB },
        ]),
      ]),
      httpRoute('specific-grant', {
        parentRefs: [{ name: 'gateway-secret-reference-grant-specific' }],
        rules: [rule('infra-backend-v3')],
      }),
    ]);
    await expectListeners('gateway-secret-reference-grant-specific', [
      {
        name: 'https',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 1,
        conditions: { Programmed: 'True/Programmed', ResolvedRefs: 'True' },
      },
    ]);
    await expectCertificateFor('specific-grant.secrets.test');
    await eventually(async () => {
      const response = await send('specific-grant.secrets.test', '/', undefined, true);
      expect(`${response.status} ${response.body.split(':')[0]}`).toBe('200 infra-backend-v3');
    });
    await api().deleteNamespacedCustomObject({
      group: GROUP,
      version: 'v1beta1',
      plural: 'referencegrants',
      namespace: WEB,
      name: 'reference-grant-specific',
    });
    // The route stays attached (and counted) to the listener that lost its certificate.
    await expectListeners('gateway-secret-reference-grant-specific', [
      {
        name: 'https',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 1,
        conditions: { Programmed: 'False', ResolvedRefs: 'False/RefNotPermitted' },
      },
    ]);
  });
});

describe('GatewayWithAttachedRoutes', () => {
  const fromInfra = {
    kinds: [{ kind: 'HTTPRoute' }],
    namespaces: { from: 'Selector', selector: { matchLabels: { 'kubernetes.io/metadata.name': INFRA } } },
  };

  it('counts the one route attached to a listener', async () => {
    await server.apply([
      gateway('gateway-with-one-attached-route', [httpListener('http', 'one.attached.test', fromInfra)]),
      httpRoute('attached-route-1', {
        parentRefs: [{ kind: 'Gateway', name: 'gateway-with-one-attached-route', namespace: INFRA }],
        rules: [rule('infra-backend-v1')],
      }),
    ]);
    await expectListeners('gateway-with-one-attached-route', [
      {
        name: 'http',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 1,
        conditions: { Accepted: 'True', ResolvedRefs: 'True' },
      },
    ]);
    await expectAnswers([['one.attached.test', '/', 'infra-backend-v1']]);
  });

  it('counts two attached routes, and not a route whose hostname the listener does not match', async () => {
    const parentRefs = [{ kind: 'Gateway', name: 'gateway-with-two-attached-routes', namespace: INFRA }];
    await server.apply([
      gateway('gateway-with-two-attached-routes', [httpListener('http', 'two.attached.test', fromInfra)]),
      httpRoute('attached-route-2', {
        parentRefs,
        rules: [rule('infra-backend-v1', { path: { type: 'PathPrefix', value: '/two' } })],
      }),
      httpRoute('attached-route-3', {
        parentRefs,
        rules: [rule('infra-backend-v2', { path: { type: 'PathPrefix', value: '/three' } })],
      }),
      httpRoute('attached-route-not-accepted', {
        parentRefs,
        hostnames: ['not-accepted.attached.test'],
        rules: [rule('infra-backend-v3')],
      }),
    ]);
    await expectListeners('gateway-with-two-attached-routes', [
      {
        name: 'http',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 2,
        conditions: { Accepted: 'True', ResolvedRefs: 'True' },
      },
    ]);
    await expectRouteConditions(INFRA, 'attached-route-not-accepted', 'gateway-with-two-attached-routes', {
      Accepted: 'False/NoMatchingListenerHostname',
    });
    await expectAnswers([
      ['two.attached.test', '/two', 'infra-backend-v1'],
      ['two.attached.test', '/three', 'infra-backend-v2'],
      ['not-accepted.attached.test', '/', '404'],
    ]);
  });

  it('counts a route on an HTTPS listener whose certificate is missing, and serves nothing there', async () => {
    await server.apply([
      gateway('unresolved-gateway-with-one-attached-unresolved-route', [
        httpsListener('tls', 'unresolved.attached.test', [
          { group: '', kind: 'Secret', name: 'does-not-exist' },
        ]),
      ]),
      httpRoute('attached-unresolved-route', {
        parentRefs: [
          {
            name: 'unresolved-gateway-with-one-attached-unresolved-route',
            namespace: INFRA,
            sectionName: 'tls',
          },
        ],
        rules: [{ backendRefs: [{ name: 'does-not-exist', port: 8080 }] }],
      }),
    ]);
    await expectListeners('unresolved-gateway-with-one-attached-unresolved-route', [
      {
        name: 'tls',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 1,
        conditions: { Programmed: 'False', ResolvedRefs: 'False' },
      },
    ]);
    await expectRouteConditions(
      INFRA,
      'attached-unresolved-route',
      'unresolved-gateway-with-one-attached-unresolved-route',
      {
        ResolvedRefs: 'False/BackendNotFound',
      },
    );
  });
});

describe('GatewayModifyListeners', () => {
  it('serves a listener once it is added', async () => {
    await server.apply([
      tlsSecretManifest('modify-listeners-certificate', 'secure.add.modify.test', INFRA),
      gateway('gateway-add-listener', [
        httpsListener('https', 'secure.add.modify.test', [
          { group: '', kind: 'Secret', name: 'modify-listeners-certificate' },
        ]),
      ]),
      httpRoute('add-listener-route', {
        parentRefs: [{ kind: 'Gateway', name: 'gateway-add-listener', namespace: INFRA }],
        rules: [rule('infra-backend-v1')],
      }),
    ]);
    const original = await expectListeners('gateway-add-listener', [
      { name: 'https', kinds: [HTTP_ROUTE], attachedRoutes: 1, conditions: { Accepted: 'True' } },
    ]);
    expect(await answer('data.add.modify.test')).toBe('404');
    await server.apply(
      gateway('gateway-add-listener', [
        httpsListener('https', 'secure.add.modify.test', [
          { group: '', kind: 'Secret', name: 'modify-listeners-certificate' },
        ]),
        httpListener('http', 'data.add.modify.test', { namespaces: { from: 'All' } }),
      ]),
    );
    const updated = await expectListeners('gateway-add-listener', [
      {
        name: 'https',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 1,
        conditions: { Accepted: 'True', ResolvedRefs: 'True' },
      },
      {
        name: 'http',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 1,
        conditions: { Accepted: 'True', ResolvedRefs: 'True' },
      },
    ]);
    expect(updated.metadata.generation).not.toBe(original.metadata.generation);
    await expectAnswers([['data.add.modify.test', '/', 'infra-backend-v1']]);
  });

  it('stops serving a listener once it is removed', async () => {
    const https = httpsListener('https', 'secure.remove.modify.test', [
      { group: '', kind: 'Secret', name: 'remove-listener-certificate' },
    ]);
    const http = httpListener('http', 'plain.remove.modify.test', { namespaces: { from: 'All' } });
    await server.apply([
      tlsSecretManifest('remove-listener-certificate', 'secure.remove.modify.test', INFRA),
      gateway('gateway-remove-listener', [https, http]),
      httpRoute('remove-listener-route', {
        parentRefs: [{ kind: 'Gateway', name: 'gateway-remove-listener', namespace: INFRA }],
        rules: [rule('infra-backend-v2')],
      }),
    ]);
    const original = await expectListeners('gateway-remove-listener', [
      { name: 'https', kinds: [HTTP_ROUTE], attachedRoutes: 1, conditions: { Accepted: 'True' } },
      { name: 'http', kinds: [HTTP_ROUTE], attachedRoutes: 1, conditions: { Accepted: 'True' } },
    ]);
    await eventually(async () => {
      const response = await send('secure.remove.modify.test', '/', undefined, true);
      expect(`${response.status} ${response.body.split(':')[0]}`).toBe('200 infra-backend-v2');
    });
    await server.apply(gateway('gateway-remove-listener', [http]));
    const updated = await expectListeners('gateway-remove-listener', [
      {
        name: 'http',
        kinds: [HTTP_ROUTE],
        attachedRoutes: 1,
        conditions: { Accepted: 'True', ResolvedRefs: 'True' },
      },
    ]);
    expect(updated.metadata.generation).not.toBe(original.metadata.generation);
    await eventually(async () =>
      expect((await send('secure.remove.modify.test', '/', undefined, true)).status).toBe(404),
    );
    await expectAnswers([['plain.remove.modify.test', '/', 'infra-backend-v2']]);
  });
});

describe('GatewayListenerUnsupportedProtocol', () => {
  const invalid = { name: 'invalid', port: 1111, protocol: 'INVALID' };
  const refused = {
    name: 'invalid',
    kinds: [],
    attachedRoutes: 0,
    conditions: { Accepted: 'False/UnsupportedProtocol' },
  };

  it('does not accept a Gateway whose only listener has a protocol it does not serve', async () => {
    await server.apply(gateway('gateway-only-unsupported-protocols', [invalid]));
    await expectGatewayCondition('gateway-only-unsupported-protocols', 'Accepted', 'False/ListenersNotValid');
    await expectListeners('gateway-only-unsupported-protocols', [refused]);
  });

  it('accepts a Gateway with one listener it serves, and serves that listener', async () => {
    await server.apply([
      gateway('gateway-supported-and-unsupported-protocols', [
        httpListener('http', 'supported.protocols.test'),
        invalid,
      ]),
      httpRoute('supported-protocols', {
        parentRefs: [{ name: 'gateway-supported-and-unsupported-protocols', sectionName: 'http' }],
        rules: [rule('infra-backend-v3')],
      }),
    ]);
    await expectGatewayCondition(
      'gateway-supported-and-unsupported-protocols',
      'Accepted',
      'True/ListenersNotValid',
    );
    await expectListeners('gateway-supported-and-unsupported-protocols', [
      { name: 'http', kinds: [HTTP_ROUTE], attachedRoutes: 1, conditions: { Accepted: 'True/Accepted' } },
      refused,
    ]);
    await expectAnswers([['supported.protocols.test', '/', 'infra-backend-v3']]);
  });
});

describe('GatewayClassObservedGenerationBump', () => {
  it('reports the new generation in every condition after a spec change', async () => {
    const name = 'gatewayclass-observed-generation-bump';
    const gatewayClass = (description: string) => ({
      apiVersion: `${GROUP}/v1`,
      kind: 'GatewayClass',
      metadata: { name },
      spec: { controllerName: CONTROLLER_NAME, description },
    });
    const expectLatest = () =>
      eventually(async () => {
        const object = (await api().getClusterCustomObject({
          group: GROUP,
          version: 'v1',
          plural: 'gatewayclasses',
          name,
        })) as { metadata: { generation: number }; status?: { conditions?: Condition[] } };
        const conditions = object.status?.conditions ?? [];
        expect(condition(conditions, 'Accepted')?.status).toBe('True');
        for (const entry of conditions) expect(entry.observedGeneration).toBe(object.metadata.generation);
        return object.metadata.generation;
      });
    await server.apply(gatewayClass('old'));
    const original = await expectLatest();
    await server.apply(gatewayClass('new'));
    await eventually(async () => expect(await expectLatest()).not.toBe(original));
  });
});

describe('GatewayHTTPListenerIsolation', () => {
  /**
   * A Gateway `name` with a listener without hostname and three for `*.<domain>`,
   * `*.foo.<domain>` and `abc.foo.<domain>`, and a route `<routes>-<listener>` on each for the
   * path named after the listener, with these hostnames (none when undefined).
   */
  function isolationCase(
    name: string,
    routes: string,
    domain: string,
    hostnames?: string[],
  ): Record<string, unknown>[] {
    const listeners = {
      'empty-hostname': undefined,
      'wildcard-domain': `*.${domain}`,
      'wildcard-foo-domain': `*.foo.${domain}`,
      'abc-foo-domain': `abc.foo.${domain}`,
    };
    return [
      gateway(
        name,
        Object.entries(listeners).map(([listener, hostname]) =>
          httpListener(listener, hostname, { namespaces: { from: 'All' } }),
        ),
      ),
      ...Object.keys(listeners).map((listener) =>
        httpRoute(`${routes}-${listener}`, {
          parentRefs: [{ name, namespace: INFRA, sectionName: listener }],
          ...(hostnames === undefined ? {} : { hostnames }),
          rules: [rule('infra-backend-v1', { path: { type: 'PathPrefix', value: `/${listener}` } })],
        }),
      ),
    ];
  }

  /** Each request is answered by the routes of the most specific listener for its host only. */
  async function expectIsolated(name: string, routes: string, domain: string): Promise<void> {
    for (const listener of ['empty-hostname', 'wildcard-domain', 'wildcard-foo-domain', 'abc-foo-domain']) {
      await expectRouteConditions(INFRA, `${routes}-${listener}`, name, {
        Accepted: 'True/Accepted',
        ResolvedRefs: 'True/ResolvedRefs',
      });
    }
    const hosts = {
      'empty-hostname': `bar.other-${domain}`,
      'wildcard-domain': `bar.${domain}`,
      'wildcard-foo-domain': `bar.foo.${domain}`,
      'abc-foo-domain': `abc.foo.${domain}`,
    };
    await expectAnswers(
      Object.entries(hosts).flatMap(([listener, host]) =>
        Object.keys(hosts).map((path): [string, string, string] => [
          host,
          `/${path}`,
          path === listener ? 'infra-backend-v1' : '404',
        ]),
      ),
    );
  }

  it('serves each request by the listener of the most specific hostname when routes have none', async () => {
    await server.apply(isolationCase('http-listener-isolation', 'isolation', 'isolation.test'));
    await expectIsolated('http-listener-isolation', 'isolation', 'isolation.test');
  });

  it('serves each request by the listener of the most specific hostname when route hostnames intersect several', async () => {
    // Only one listener without a hostname can serve port 80 in one nginx: the first case goes.
    await api().deleteNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      plural: 'gateways',
      namespace: INFRA,
      name: 'http-listener-isolation',
    });
    const domain = 'intersection.isolation.test';
    await server.apply(
      isolationCase('http-listener-isolation-with-hostname-intersection', 'intersection', domain, [
        `bar.other-${domain}`,
        `*.${domain}`,
        `*.foo.${domain}`,
        `abc.foo.${domain}`,
      ]),
    );
    await expectIsolated('http-listener-isolation-with-hostname-intersection', 'intersection', domain);
  });
});

describe('GatewayOptionalAddressValue', () => {
  it('accepts an address request without a value and reports the address it serves on', async () => {
    // Upstream's listener is on 8080, a port this data plane does not serve; 80 asks the same.
    await server.apply(
      withSpec(gateway('gateway-without-address-value', [httpListener('http', 'optional-address.test')]), {
        addresses: [{ type: 'IPAddress' }],
      }),
    );
    await eventually(async () => {
      const object = await readGateway(INFRA, 'gateway-without-address-value');
      const conditions = object.status?.conditions ?? [];
      expect(conditions.length).toBeGreaterThan(0);
      for (const entry of conditions) expect(entry.observedGeneration).toBe(object.metadata.generation);
      expect(object.status?.addresses).toEqual([{ type: 'IPAddress', value: '10.0.0.1' }]);
    });
  });
});

describe('GatewayInvalidParametersRef', () => {
  it('does not accept nor serve a Gateway whose parametersRef it cannot read', async () => {
    await server.apply([
      withSpec(gateway('gateway-invalid-parameters-ref', [httpListener('http', 'invalid-parameters.test')]), {
        infrastructure: {
          parametersRef: { group: 'invalid.example.io', kind: 'InvalidParameters', name: 'invalid' },
        },
      }),
      httpRoute('invalid-parameters', {
        parentRefs: [{ name: 'gateway-invalid-parameters-ref' }],
        rules: [rule('infra-backend-v1')],
      }),
    ]);
    await expectGatewayCondition('gateway-invalid-parameters-ref', 'Accepted', 'False/InvalidParameters');
    await expectRouteConditions(INFRA, 'invalid-parameters', 'gateway-invalid-parameters-ref', {
      Accepted: 'False/NotAllowedByListeners',
    });
    expect(await answer('invalid-parameters.test')).toBe('404');
  });
});
