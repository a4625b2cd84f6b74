/**
 * Just enough of Kubernetes' protobuf encoding to read the bodies kubectl's imperative generators
 * send (`kubectl create namespace|configmap|secret|service …` use typed clients that write
 * protobuf and cannot fall back to JSON). The envelope is the 4-byte magic `k8s\0` followed by a
 * runtime.Unknown {typeMeta, raw}; `raw` is the object in its generated.proto schema. Field numbers
 * are those of k8s.io/api core/v1 and k8s.io/apimachinery meta/v1. Unknown fields are skipped.
 */
import type { JsonObject } from './objects.js';

type Scalar = 'string' | 'bytes' | 'bool' | 'int' | 'time' | 'intOrString';
type FieldType = Scalar | { message: Schema } | { map: 'string' | 'bytes' };
interface FieldSpec {
  name: string;
  type: FieldType;
  repeated?: boolean;
}
type Schema = Readonly<Record<number, FieldSpec>>;

const ownerReference: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};

const objectMeta: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: 'time' },
  11: { name: 'labels', type: { map: 'string' } },
  12: { name: 'annotations', type: { map: 'string' } },
  13: { name: 'ownerReferences', type: { message: ownerReference }, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};

const servicePort: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'protocol', type: 'string' },
  3: { name: 'port', type: 'int' },
  4: { name: 'targetPort', type: 'intOrString' },
  5: { name: 'nodePort', type: 'int' },
  6: { name: 'appProtocol', type: 'string' },
};

const serviceSpec: Schema = {
  1: { name: 'ports', type: { message: servicePort }, repeated: true },
  2: { name: 'selector', type: { map: 'string' } },
  3: { name: 'clusterIP', type: 'string' },
  4: { name: 'type', type: 'string' },
  5: { name: 'externalIPs', type: 'string', repeated: true },
  7: { name: 'sessionAffinity', type: 'string' },
  10: { name: 'externalName', type: 'string' },
  11: { name: 'externalTrafficPolicy', type: 'string' },
  18: { name: 'clusterIPs', type: 'string', repeated: true },
  19: { name: 'ipFamilies', type: 'string', repeated: true },
  17: { name: 'ipFamilyPolicy', type: 'string' },
  22: { name: 'internalTrafficPolicy', type: 'string' },
};

const schemasByKind: Readonly<Record<string, Schema>> = {
  Namespace: {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: { name: 'spec', type: { message: { 1: { name: 'finalizers', type: 'string', repeated: true } } } },
  },
  ConfigMap: {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: { name: 'data', type: { map: 'string' } },
    3: { name: 'binaryData', type: { map: 'bytes' } },
    4: { name: 'immutable', type: 'bool' },
  },
  Secret: {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: { name: 'data', type: { map: 'bytes' } },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: { map: 'string' } },
    5: { name: 'immutable', type: 'bool' },
  },
  Service: {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: { name: 'spec', type: { message: serviceSpec } },
  },
};

const envelopeMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The kinds whose protobuf bodies this server can read. */
export const protobufKinds = Object.keys(schemasByKind);

/** The protobuf media type Kubernetes clients send. */
export const protobufContentType = 'application/vnd.kubernetes.protobuf';

/** Why a protobuf body cannot be read; the caller answers 415 (unknown kind) or 400 (malformed). */
export type ProtobufDecodeResult =
  | { decoded: true; object: JsonObject }
  | { decoded: false; reason: 'malformed' | 'unsupportedKind'; message: string };

/** Decodes a `k8s\0`-prefixed protobuf body into the JSON object it encodes. */
export function decodeProtobufObject(body: Uint8Array): ProtobufDecodeResult {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.length < 4 || !bytes.subarray(0, 4).equals(envelopeMagic)) {
    return {
      decoded: false,
      reason: 'malformed',
      message: 'the protobuf body does not start with the k8s envelope',
    };
  }
  try {
    const envelope = decodeMessage(bytes.subarray(4), {
      1: {
        name: 'typeMeta',
        type: { message: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } },
      },
      2: { name: 'raw', type: 'bytes' },
    });
    const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
    const schema = typeMeta.kind === undefined ? undefined : schemasByKind[typeMeta.kind];
    if (!schema) {
      return {
        decoded: false,
        reason: 'unsupportedKind',
        message: `protobuf bodies of kind ${typeMeta.kind ?? '(none)'} are not supported; send JSON (for example kubectl create -f)`,
      };
    }
    const raw = typeof envelope.raw === 'string' ? Buffer.from(envelope.raw, 'base64') : Buffer.alloc(0);
    const object = decodeMessage(raw, schema);
    return { decoded: true, object: { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...object } };
  } catch (error) {
    return {
      decoded: false,
      reason: 'malformed',
      message: `malformed protobuf body: ${(error as Error).message}`,
    };
  }
}

class Reader {
  offset = 0;
  constructor(readonly bytes: Buffer) {}

  isDone(): boolean {
    return this.offset >= this.bytes.length;
  }

  varint(): number {
    let result = 0;
    let multiplier = 1;
    for (let i = 0; i < 10; i++) {
      if (this.offset >= this.bytes.length) throw new Error('truncated varint');
      const byte = this.bytes[this.offset++]!;
      result += (byte & 0x7f) * multiplier;
      if ((byte & 0x80) === 0) return result;
      multiplier *= 128;
    }
    throw new Error('varint too long');
  }

  chunk(): Buffer {
    const length = this.varint();
    if (this.offset + length > this.bytes.length) throw new Error('truncated field');
    const value = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.offset += 8;
    else if (wireType === 2) this.chunk();
    else if (wireType === 5) this.offset += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

function decodeMessage(bytes: Buffer, schema: Schema): JsonObject {
  const reader = new Reader(bytes);
  const result: JsonObject = {};
  while (!reader.isDone()) {
    const tag = reader.varint();
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    const spec = schema[field];
    if (!spec) {
      reader.skip(wireType);
      continue;
    }
    const value = decodeField(reader, wireType, spec.type);
    if (typeof spec.type === 'object' && 'map' in spec.type) {
      const [key, item] = value as [string, unknown];
      const map = (result[spec.name] ??= {}) as JsonObject;
      map[key] = item;
    } else if (spec.repeated) {
      ((result[spec.name] ??= []) as unknown[]).push(value);
    } else if (value !== '' && value !== 0 && value !== false) {
      // Go writes every optional scalar, zero values included; JSON (omitempty) leaves them out.
      result[spec.name] = value;
    }
  }
  return result;
}

function decodeField(reader: Reader, wireType: number, type: FieldType): unknown {
  if (typeof type === 'object') {
    const bytes = reader.chunk();
    if ('message' in type) return decodeMessage(bytes, type.message);
    const entry = decodeMessage(bytes, {
      1: { name: 'key', type: 'string' },
      2: { name: 'value', type: type.map },
    });
    return [entry.key ?? '', entry.value ?? ''];
  }
  switch (type) {
    case 'string':
      return reader.chunk().toString('utf8');
    case 'bytes':
      return reader.chunk().toString('base64');
    case 'bool':
      return reader.varint() !== 0;
    case 'int':
      if (wireType !== 0) throw new Error('expected a varint');
      return reader.varint();
    case 'time': {
      const time = decodeMessage(reader.chunk(), {
        1: { name: 'seconds', type: 'int' },
        2: { name: 'nanos', type: 'int' },
      });
      return new Date(Number(time.seconds ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    case 'intOrString': {
      const value = decodeMessage(reader.chunk(), {
        1: { name: 'type', type: 'int' },
        2: { name: 'intVal', type: 'int' },
        3: { name: 'strVal', type: 'string' },
      });
      return value.type === 1 ? (value.strVal ?? '') : (value.intVal ?? 0);
    }
  }
}
