/**
 * The CustomResourceDefinitions of IngressCheckSum and SecretCheckSum, compatible with
 * Tengine-Ingress, as objects to apply.
 */
import { checksumApiGroup, checksumApiVersion } from './checksum-object.js';

// The CRD types are spelled out here rather than taken from @kubernetes/client-node, which is not a
// dependency of this package: a consumer's compiler must resolve every type of the published .d.ts.
// They are structural subsets of client-node's V1CustomResourceDefinition, so the objects can be
// passed to its apiextensions client as they are.

/** One node of a structural OpenAPI v3 schema, as far as the checksum CRDs use it. */
export interface CrdSchemaProps {
  type: string;
  description?: string;
  format?: string;
  required?: string[];
  properties?: Record<string, CrdSchemaProps>;
  items?: CrdSchemaProps;
}

/** A served version of a CustomResourceDefinition, as far as the checksum CRDs use it. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: CrdSchemaProps };
  additionalPrinterColumns: { name: string; type: string; jsonPath: string }[];
}

/** An `apiextensions.k8s.io/v1` CustomResourceDefinition, as far as the checksum CRDs use it. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string };
    scope: 'Namespaced' | 'Cluster';
    versions: CrdVersion[];
  };
}

function buildSchema(kind: string, objects: string): CrdSchemaProps {
  return {
    type: 'object',
    description: `${kind} publishes the checksum a control plane computed over the configuration ids of all ${objects}, so that data planes can check they see the same set.`,
    properties: {
      apiVersion: { type: 'string', description: 'Versioned schema of this object.' },
      kind: { type: 'string', description: 'REST resource this object represents.' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        description: `What the control plane computed, and when.`,
        required: ['timestamp'],
        properties: {
          checksum: {
            type: 'string',
            description: 'Lowercase hex md5 of the ids, sorted by byte and joined with commas.',
          },
          // No x-kubernetes-list-type: set here, although Tengine's Go type says so: two objects may
          // share an id (the namespace is not part of it), and a set would make the API server reject
          // such a publication.
          ids: {
            type: 'array',
            description:
              'The ids the checksum was computed from; data planes diff against them on a mismatch.',
            items: { type: 'string' },
          },
          timestamp: {
            type: 'string',
            format: 'date-time',
            description: 'When the checksum was computed.',
          },
        },
      },
    },
  };
}

function buildCrd(kind: string, plural: string, objects: string): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${checksumApiGroup}` },
    spec: {
      group: checksumApiGroup,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: checksumApiVersion,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: buildSchema(kind, objects) },
          additionalPrinterColumns: [
            { name: 'Checksum', type: 'string', jsonPath: '.spec.checksum' },
            { name: 'Computed', type: 'date', jsonPath: '.spec.timestamp' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * The CustomResourceDefinition of IngressCheckSum (`ingresschecksums.tengine.taobao.org`, namespaced,
 * v1), compatible with Tengine-Ingress. Frozen: copy it before changing anything. The same object
 * ships as crds/ingresschecksums.tengine.taobao.org.yaml.
 */
export const ingressCheckSumCrd: CustomResourceDefinition = deepFreeze(
  buildCrd('IngressCheckSum', 'ingresschecksums', 'Ingresses'),
);

/**
 * The CustomResourceDefinition of SecretCheckSum (`secretchecksums.tengine.taobao.org`, namespaced,
 * v1), compatible with Tengine-Ingress. Frozen: copy it before changing anything. The same object
 * ships as crds/secretchecksums.tengine.taobao.org.yaml.
 */
export const secretCheckSumCrd: CustomResourceDefinition = deepFreeze(
  buildCrd('SecretCheckSum', 'secretchecksums', 'TLS and CA Secrets'),
);
