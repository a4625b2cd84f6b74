/** The CustomResourceDefinition of IngressKitParameters, our own GatewayClass parameters kind. */
import { PARAMETERS_GROUP, PARAMETERS_KIND } from './parameters.js';

const stringField = (description: string, pattern?: string) => ({
  type: 'string',
  description,
  ...(pattern ? { pattern } : {}),
});

/**
 * The CustomResourceDefinition of IngressKitParameters (cluster-scoped, `ingresskit.dev/v1alpha1`),
 * the same object as `crds/ingresskitparameters.yaml`; apply it before referencing the kind.
 */
export const ingressKitParametersCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `ingresskitparameters.${PARAMETERS_GROUP}` },
  spec: {
    group: PARAMETERS_GROUP,
    names: {
      kind: PARAMETERS_KIND,
      listKind: `${PARAMETERS_KIND}List`,
      plural: 'ingresskitparameters',
      singular: 'ingresskitparameters',
      categories: ['ingresskit'],
    },
    scope: 'Cluster',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'Parameters of an IngressKit GatewayClass, referenced from spec.parametersRef.',
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                // Unknown keys are kept so the controller can name a typo in InvalidParameters
                // instead of the API server pruning it silently.
                'x-kubernetes-preserve-unknown-fields': true,
                properties: {
                  logLevel: {
                    type: 'string',
                    description: 'nginx error_log level.',
                    enum: ['debug', 'info', 'notice', 'warn', 'error', 'crit'],
                  },
                  workerConnections: {
                    type: 'integer',
                    description: 'nginx worker_connections.',
                    minimum: 1,
                    maximum: 65535,
                  },
                  proxyReadTimeout: stringField(
                    'nginx proxy_read_timeout: a positive number with a unit (ms, s, m, h).',
                    '^[1-9][0-9]{0,8}(ms|s|m|h)$',
                  ),
                  clientMaxBodySize: stringField(
                    'nginx client_max_body_size: 0 (no limit) or a size with an optional k, m or g unit.',
                    '^(0|[1-9][0-9]{0,12}[kKmMgG]?)$',
                  ),
                  hsts: {
                    type: 'boolean',
                    description: 'Send Strict-Transport-Security on HTTPS responses.',
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
} as const;
