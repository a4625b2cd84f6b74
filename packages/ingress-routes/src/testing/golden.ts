/**
 * Test-only golden-file harness: `testdata/<case>.in.yaml` (Kubernetes objects, plus an optional
 * `kind: GoldenOptions` document) → `<case>.out.yaml` (each Ingress's translation) and
 * `<case>.table.yaml` (the route table a controller would assemble from them: the catch-all
 * contribution, every translation, every referenced backend resolved, and the assembly notes).
 * Secret `stringData` values of the form `file:tls/x.crt` are read from testdata, so certificates
 * are not pasted into the manifests; PEM text is shortened in the output for the same reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createRouteTableBuilder,
  parseServiceBackendId,
  type AssemblyNote,
  type Certificate,
} from '@ingresskit/route-model';
import { parseAllDocuments, stringify } from 'yaml';
import { createDefaultBackendContribution, createDefaultBackendRoute } from '../default-backend.js';
import { resolveServiceBackend } from '../service-backend.js';
import { translateIngress } from '../translate-ingress.js';
import type { EndpointSliceLike, SecretLike, ServiceLike } from '@ingresskit/kube-objects';
import type { IngressTranslationConfig, ServiceReference } from '../types.js';

/** The testdata directory. */
export const TESTDATA_DIR = fileURLToPath(new URL('../../testdata/', import.meta.url));

/** Names of the golden cases (files `<name>.in.yaml`), sorted. */
export function listGoldenCases(): string[] {
  return readdirSync(TESTDATA_DIR)
    .filter((file) => file.endsWith('.in.yaml'))
    .map((file) => file.slice(0, -'.in.yaml'.length))
    .sort();
}

interface GoldenOptions {
  defaultBackend?: ServiceReference;
  now?: number;
  annotationPrefix?: string;
}

type KubeObject = {
  kind?: string;
  metadata?: { namespace?: string; name?: string; labels?: Record<string, string> };
  stringData?: Record<string, string>;
};

/** Replaces `file:` references in `stringData` by the file's text; stringData itself is read by the translation. */
function resolveFileReferences(object: KubeObject): KubeObject {
  if (object.stringData === undefined) return object;
  const stringData: Record<string, string> = {};
  for (const [key, value] of Object.entries(object.stringData)) {
    stringData[key] = value.startsWith('file:')
      ? readFileSync(join(TESTDATA_DIR, value.slice('file:'.length)), 'utf8')
      : value;
  }
  return { ...object, stringData };
}

function shortenCertificate(certificate: Certificate): Record<string, unknown> {
  const blocks = certificate.certificatePem.match(/BEGIN CERTIFICATE/g)?.length ?? 0;
  return {
    ...certificate,
    certificatePem: `<${blocks} PEM certificate(s)>`,
    privateKeyPem: '<PEM private key>',
  };
}

// Certificates appear in TLS claims and in the table; the PEM text says nothing a reader checks.
function replacer(_key: unknown, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'certificatePem' in value && 'privateKeyPem' in value) {
    return shortenCertificate(value as Certificate);
  }
  return value;
}

function describeNote(note: AssemblyNote): string {
  const source = `${note.source.kind}/${note.source.namespace}/${note.source.name}`;
  switch (note.type) {
    case 'route-shadowed':
    case 'fallback-overridden':
      return `${note.type}: host ${note.hostname}: ${note.route.id} of ${source} by ${note.by.id}`;
    case 'canary-unmatched':
      return `${note.type}: host ${note.hostname}: ${note.route.id} of ${source}${note.by ? ` by ${note.by.id}` : ''}`;
    case 'tls-overridden':
      return `${note.type}: host ${note.hostname}: ${source} by ${note.by.origin.kind}/${note.by.origin.namespace}/${note.by.origin.name}`;
    case 'host-owned-elsewhere':
      return `${note.type}: host ${note.hostname}: ${source} by tenant ${note.owner.tenant}`;
    case 'host-limit-exceeded':
      return `${note.type}: host ${note.hostname}: ${source}: ${note.reason}`;
  }
}

/** What a golden case produces. */
export interface GoldenOutput {
  translations: string;
  table: string;
}

/** Translates one case and assembles its table. */
export function runGoldenCase(name: string): GoldenOutput {
  const documents = parseAllDocuments(readFileSync(join(TESTDATA_DIR, `${name}.in.yaml`), 'utf8'));
  const objects = documents
    .map((document) => document.toJS() as KubeObject)
    .filter((object) => object !== null);
  const options = (objects.find((object) => object.kind === 'GoldenOptions') ?? {}) as GoldenOptions;
  const ofKind = (kind: string) =>
    objects.filter((object) => object.kind === kind).map(resolveFileReferences);
  const keyOf = (object: KubeObject) => `${object.metadata?.namespace}/${object.metadata?.name}`;
  const secrets = new Map(ofKind('Secret').map((secret) => [keyOf(secret), secret as SecretLike]));
  const services = new Map(ofKind('Service').map((service) => [keyOf(service), service as ServiceLike]));
  const slices = ofKind('EndpointSlice') as EndpointSliceLike[];
  const config: IngressTranslationConfig = {};
  if (options.now !== undefined) config.now = options.now;
  if (options.annotationPrefix !== undefined) config.annotationPrefix = options.annotationPrefix;

  const translations = ofKind('Ingress').map((ingress) => {
    const references = {
      secret: (namespace: string, secretName: string) => secrets.get(`${namespace}/${secretName}`),
    };
    return { ingress: keyOf(ingress), ...translateIngress(ingress, references, config) };
  });

  const builder = createRouteTableBuilder({
    defaultFallback: createDefaultBackendRoute(options.defaultBackend),
  });
  builder.setContribution(createDefaultBackendContribution());
  for (const { contribution } of translations)
    if (contribution !== undefined) builder.setContribution(contribution);
  const backendProblems: Record<string, string> = {};
  for (const id of [...builder.backendReferences().keys()].sort()) {
    const reference = parseServiceBackendId(id)!;
    const resolution = resolveServiceBackend(
      reference,
      services.get(`${reference.namespace}/${reference.name}`),
      slices,
    );
    builder.setBackend(resolution.backend);
    if (resolution.problem !== undefined) backendProblems[id] = resolution.problem;
  }
  builder.commit();

  const table = { ...builder.table(), notes: builder.notes().map(describeNote), backendProblems };
  const toYaml = (value: unknown) => stringify(JSON.parse(JSON.stringify(value, replacer)), { lineWidth: 0 });
  // A left-out Ingress shows `contribution: null` rather than no key at all.
  const shown = translations.map((translation) => ({
    ...translation,
    contribution: translation.contribution ?? null,
  }));
  return { translations: toYaml(shown), table: toYaml(table) };
}
