import { describe, expect, it } from 'vitest';
import { createIngressTranslator, translateIngress } from './index.js';
import { A, ingress, path, secrets, tlsSecret } from './testing/fixtures.js';
import type { IngressLike } from '@ingresskit/kube-objects';

const tls = [{ hosts: ['secure.example.com'], secretName: 'cert' }];

function versioned(
  resourceVersion: string,
  options: { uid?: string; annotations?: Record<string, string> } = {},
) {
  return ingress(
    'a',
    { 'secure.example.com': [path('/', 'Prefix', 'app')] },
    {
      tls,
      uid: options.uid ?? 'uid-1',
      resourceVersion,
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    },
  );
}

/** A clock tests move by hand. */
function createManualClock(start = Date.parse('2030-01-01T00:00:00Z')) {
  let time = start;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
    set(ms: number) {
      time = ms;
    },
  };
}

describe('createIngressTranslator', () => {
  it('translates as translateIngress does, with the time as now', () => {
    const clock = createManualClock();
    const references = secrets(tlsSecret('cert', 'secure', { resourceVersion: '1' }));
    const translator = createIngressTranslator({ now: clock.now });
    expect(translator.translate(versioned('1'), references)).toEqual(
      translateIngress(versioned('1'), references, { now: clock.now() }),
    );
  });

  it('returns the same translation while the Ingress and its Secrets keep their resourceVersions', () => {
    const clock = createManualClock();
    const translator = createIngressTranslator({ now: clock.now });
    const first = translator.translate(
      versioned('1'),
      secrets(tlsSecret('cert', 'secure', { resourceVersion: '5' })),
    );
    const references = secrets(tlsSecret('cert', 'secure', { resourceVersion: '5' }));
    expect(translator.translate(versioned('1'), references)).toBe(first);
    expect(translator.size).toBe(1);
  });

  it('translates again when the Ingress gets a new resourceVersion or uid', () => {
    const translator = createIngressTranslator({ now: createManualClock().now });
    const references = secrets(tlsSecret('cert', 'secure', { resourceVersion: '5' }));
    const first = translator.translate(versioned('1'), references);
    const changed = translator.translate(
      versioned('2', { annotations: { [`${A}ssl-redirect`]: 'false' } }),
      references,
    );
    expect(changed).not.toBe(first);
    expect(changed.contribution?.hosts[0]?.routes[0]?.policy.redirectToHttps).toBeUndefined();
    const recreated = translator.translate(versioned('2', { uid: 'uid-2' }), references);
    expect(recreated).not.toBe(changed);
    expect(recreated.contribution?.hosts[0]?.routes[0]?.policy.redirectToHttps).toBeDefined();
  });

  it('translates again when a Secret it read changes, disappears or appears', () => {
    const translator = createIngressTranslator({ now: createManualClock().now });
    const first = translator.translate(
      versioned('1'),
      secrets(tlsSecret('cert', 'secure', { resourceVersion: '5' })),
    );
    const rotated = translator.translate(
      versioned('1'),
      secrets(tlsSecret('cert', 'other', { resourceVersion: '6' })),
    );
    expect(rotated).not.toBe(first);
    expect(rotated.contribution?.tls[0]?.certificate.id).not.toBe(first.contribution?.tls[0]?.certificate.id);
    const gone = translator.translate(versioned('1'), secrets());
    expect(gone.contribution?.tls).toEqual([]);
    expect(translator.translate(versioned('1'), secrets())).toBe(gone);
    const back = translator.translate(
      versioned('1'),
      secrets(tlsSecret('cert', 'secure', { resourceVersion: '7' })),
    );
    expect(back.contribution?.tls).toHaveLength(1);
  });

  it('translates again once a certificate it read has expired', () => {
    const clock = createManualClock(Date.parse('2030-01-01T00:00:00Z'));
    // Years pass in this test; the entry must not be forgotten as idle meanwhile.
    const translator = createIngressTranslator({ now: clock.now, idleMs: Number.POSITIVE_INFINITY });
    const references = secrets(tlsSecret('cert', 'secure', { resourceVersion: '5' }));
    const valid = translator.translate(versioned('1'), references);
    expect(valid.problems).toEqual([]);
    const notAfter = Date.parse(valid.contribution!.tls[0]!.certificate.notAfter!);
    clock.set(notAfter);
    expect(translator.translate(versioned('1'), references)).toBe(valid);
    clock.set(notAfter + 1);
    const expired = translator.translate(versioned('1'), references);
    expect(expired.problems).toEqual([
      expect.objectContaining({ message: expect.stringContaining('expired') }),
    ]);
    // Once expired, it stays expired: no need to translate again.
    clock.advance(24 * 60 * 60 * 1000);
    expect(translator.translate(versioned('1'), references)).toBe(expired);
  });

  it('translates every time an object it cannot tell apart: no uid, no resourceVersion, or a Secret without one', () => {
    const translator = createIngressTranslator({ now: createManualClock().now });
    const plain = ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] });
    expect(translator.translate(plain, secrets())).not.toBe(translator.translate(plain, secrets()));
    const unversionedSecret = secrets(tlsSecret('cert', 'secure'));
    expect(translator.translate(versioned('1'), unversionedSecret)).not.toBe(
      translator.translate(versioned('1'), unversionedSecret),
    );
    expect(translator.size).toBe(0);
  });

  it('forgets an Ingress on forget(namespace/name)', () => {
    const translator = createIngressTranslator({ now: createManualClock().now });
    const references = secrets(tlsSecret('cert', 'secure', { resourceVersion: '5' }));
    const first = translator.translate(versioned('1'), references);
    translator.forget('default/a');
    expect(translator.size).toBe(0);
    expect(translator.translate(versioned('1'), references)).not.toBe(first);
  });

  it('forgets Ingresses not translated for idleMs', () => {
    const clock = createManualClock();
    const translator = createIngressTranslator({ now: clock.now, idleMs: 1000 });
    const references = secrets(tlsSecret('cert', 'secure', { resourceVersion: '5' }));
    const other = (name: string): IngressLike =>
      ingress(name, { 'b.example.com': [path('/', 'Prefix', 'app')] }, { uid: name, resourceVersion: '1' });
    translator.translate(versioned('1'), references);
    clock.advance(600);
    translator.translate(other('b'), references);
    expect(translator.size).toBe(2);
    clock.advance(600);
    translator.translate(other('c'), references);
    expect(translator.size).toBe(2);
    clock.advance(1000);
    translator.translate(other('c'), references);
    expect(translator.size).toBe(1);
  });

  it('shares its certificate cache between Ingresses', () => {
    const translator = createIngressTranslator({ now: createManualClock().now });
    const references = secrets(tlsSecret('cert', 'secure', { resourceVersion: '5' }));
    const a = translator.translate(versioned('1'), references);
    const b = translator.translate(
      ingress(
        'b',
        { 'secure.example.com': [path('/', 'Prefix', 'app')] },
        { tls, uid: 'b', resourceVersion: '1' },
      ),
      references,
    );
    expect(b.contribution?.tls[0]?.certificate).toBe(a.contribution?.tls[0]?.certificate);
  });
});
