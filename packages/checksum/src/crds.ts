import type { V1CustomResourceDefinition, V1JSONSchemaProps } from '@kubernetes/client-node';
import { checksumApiGroup, checksumApiVersion } from './checksum-object.js';

function buildSchema(kind: string, objects: string): V1JSONSchemaProps {
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

function buildCrd(kind: string, plural: string, objects: string): V1CustomResourceDefinition {
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
export const ingressCheckSumCrd: V1CustomResourceDefinition = deepFreeze(
  buildCrd('IngressCheckSum', 'ingresschecksums', 'Ingresses'),
);

/**
 * The CustomResourceDefinition of SecretCheckSum (`secretchecksums.tengine.taobao.org`, namespaced,
 * v1), compatible with Tengine-Ingress. Frozen: copy it before changing anything. The same object
 * ships as crds/secretchecksums.tengine.taobao.org.yaml.
 */
export const secretCheckSumCrd: V1CustomResourceDefinition = deepFreeze(
  buildCrd('SecretCheckSum', 'secretchecksums', 'TLS and CA Secrets'),
);
