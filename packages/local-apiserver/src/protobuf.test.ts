import { describe, expect, it } from 'vitest';
import { decodeProtobufObject } from './protobuf.js';

// Minimal protobuf writer for the test: enough to build what kubectl's typed clients send.
function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}
function field(number: number, payload: number[] | string): number[] {
  const bytes = typeof payload === 'string' ? [...Buffer.from(payload)] : payload;
  return [...varint(number * 8 + 2), ...varint(bytes.length), ...bytes];
}
function intField(number: number, value: number): number[] {
  return [...varint(number * 8), ...varint(value)];
}
function envelope(apiVersion: string, kind: string, raw: number[]): Buffer {
  const typeMeta = [...field(1, apiVersion), ...field(2, kind)];
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...field(1, typeMeta), ...field(2, raw)]);
}

describe('decodeProtobufObject', () => {
  it('decodes a ConfigMap with metadata, labels and data, dropping zero values', () => {
    const metadata = [
      ...field(1, 'c1'),
      ...field(2, ''),
      ...field(3, 'demo'),
      ...field(11, [...field(1, 'app'), ...field(2, 'web')]),
    ];
    const raw = [
      ...field(1, metadata),
      ...field(2, [...field(1, 'a'), ...field(2, '')]),
      ...field(2, [...field(1, 'b'), ...field(2, '2')]),
    ];
    expect(decodeProtobufObject(envelope('v1', 'ConfigMap', raw))).toEqual({
      decoded: true,
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c1', namespace: 'demo', labels: { app: 'web' } },
        data: { a: '', b: '2' },
      },
    });
  });

  it('decodes Service ports with an int-or-string targetPort and Secret bytes as base64', () => {
    const port = [
      ...field(1, 'http'),
      ...field(2, 'TCP'),
      ...intField(3, 80),
      ...field(4, [...intField(1, 1), ...field(3, 'web')]),
    ];
    const service = [...field(1, field(1, 's')), ...field(2, [...field(1, port), ...field(4, 'ClusterIP')])];
    expect(decodeProtobufObject(envelope('v1', 'Service', service))).toMatchObject({
      object: {
        spec: { type: 'ClusterIP', ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'web' }] },
      },
    });
    const secret = [
      ...field(1, field(1, 's')),
      ...field(2, [...field(1, 'pw'), ...field(2, 'secret')]),
      ...field(3, 'Opaque'),
    ];
    expect(decodeProtobufObject(envelope('v1', 'Secret', secret))).toMatchObject({
      object: { type: 'Opaque', data: { pw: 'c2VjcmV0' } },
    });
  });

  it('refuses kinds without a schema and bodies without the envelope', () => {
    expect(decodeProtobufObject(envelope('apps/v1', 'Deployment', []))).toMatchObject({
      decoded: false,
      reason: 'unsupportedKind',
    });
    expect(decodeProtobufObject(Buffer.from('{}'))).toMatchObject({ decoded: false, reason: 'malformed' });
    expect(decodeProtobufObject(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x7f]))).toMatchObject({
      decoded: false,
      reason: 'malformed',
    });
  });
});
