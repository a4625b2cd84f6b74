/**
 * The API server's checks of names, metadata and Ingress specs, so an object a real cluster refuses
 * is refused here too.
 */
import {
  describeLabelKeyProblems,
  describeLabelValueProblems,
  SUBDOMAIN_GRAMMAR_MESSAGE,
} from '@ingresskit/kube-objects/pure';
import type { FieldError } from './errors.js';
import { isPlainObject, type KubeObject } from './objects.js';

/** Which grammar an object's `metadata.name` must follow. */
export type NameRule = 'subdomain' | 'label' | 'dns1035';

const subdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Pattern = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const labelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Message =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** True for a lowercase RFC 1123 subdomain of at most 253 characters. */
export function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 && subdomainPattern.test(value);
}

/** True for a lowercase RFC 1123 label of at most 63 characters. */
export function isDnsLabel(value: string): boolean {
  return value.length <= 63 && labelPattern.test(value);
}

/** Field errors for a name under `rule`; empty when the name is valid. */
export function validateName(value: string, rule: NameRule, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const max = rule === 'subdomain' ? 253 : 63;
  const pattern = rule === 'subdomain' ? subdomainPattern : rule === 'label' ? labelPattern : dns1035Pattern;
  const message =
    rule === 'subdomain' ? SUBDOMAIN_GRAMMAR_MESSAGE : rule === 'label' ? labelMessage : dns1035Message;
  if (value.length > max) {
    errors.push({
      type: 'FieldValueInvalid',
      field,
      value,
      detail: `must be no more than ${max} characters`,
    });
  }
  if (!pattern.test(value)) errors.push({ type: 'FieldValueInvalid', field, value, detail: message });
  return errors;
}

/** Field errors for a label or annotation key (`[prefix/]name`). */
export function validateQualifiedName(key: string, field: string): FieldError[] {
  return describeLabelKeyProblems(key).map((detail) => ({
    type: 'FieldValueInvalid',
    field,
    value: key,
    detail,
  }));
}

/** Field errors for a label value (at most 63 characters of a restricted alphabet, or empty). */
export function validateLabelValue(value: string, field: string): FieldError[] {
  return describeLabelValueProblems(value).map((detail) => ({
    type: 'FieldValueInvalid',
    field,
    value,
    detail,
  }));
}

/** Field errors for `metadata`: name grammar, label keys and values, annotation keys and total size. */
export function validateObjectMeta(object: KubeObject, rule: NameRule): FieldError[] {
  const meta = object.metadata;
  const errors: FieldError[] = [];
  const name = meta.name;
  if (typeof name !== 'string' || name === '') {
    errors.push({
      type: 'FieldValueRequired',
      field: 'metadata.name',
      detail: 'name or generateName is required',
    });
  } else {
    errors.push(...validateName(name, rule, 'metadata.name'));
  }
  const labels: unknown = meta.labels;
  if (labels !== undefined && labels !== null) {
    if (!isPlainObject(labels)) {
      errors.push({
        type: 'FieldValueInvalid',
        field: 'metadata.labels',
        value: labels,
        detail: 'must be a map',
      });
    } else {
      for (const [key, value] of Object.entries(labels)) {
        errors.push(...validateQualifiedName(key, 'metadata.labels'));
        if (typeof value !== 'string') {
          errors.push({
            type: 'FieldValueInvalid',
            field: 'metadata.labels',
            value,
            detail: 'must be a string',
          });
        } else {
          errors.push(...validateLabelValue(value, 'metadata.labels'));
        }
      }
    }
  }
  const annotations: unknown = meta.annotations;
  if (annotations !== undefined && annotations !== null) {
    if (!isPlainObject(annotations)) {
      errors.push({
        type: 'FieldValueInvalid',
        field: 'metadata.annotations',
        value: annotations,
        detail: 'must be a map',
      });
    } else {
      let size = 0;
      for (const [key, value] of Object.entries(annotations)) {
        errors.push(...validateQualifiedName(key.toLowerCase(), 'metadata.annotations'));
        size += key.length + (typeof value === 'string' ? value.length : 0);
      }
      if (size > 256 * 1024) {
        errors.push({
          type: 'FieldValueTooLong',
          field: 'metadata.annotations',
          detail: 'may not have more than 262144 bytes',
        });
      }
    }
  }
  const finalizers: unknown = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers)) {
      errors.push({
        type: 'FieldValueInvalid',
        field: 'metadata.finalizers',
        value: finalizers,
        detail: 'must be a list',
      });
    } else {
      finalizers.forEach((finalizer, index) => {
        const field = `metadata.finalizers[${index}]`;
        if (typeof finalizer !== 'string') {
          errors.push({ type: 'FieldValueInvalid', field, value: finalizer, detail: 'must be a string' });
        } else {
          // Metadata finalizers only need to be qualified names; a missing domain is merely a warning upstream.
          errors.push(...validateQualifiedName(finalizer, field));
        }
      });
    }
  }
  return errors;
}

const pathTypes = ['Exact', 'Prefix', 'ImplementationSpecific'];

/** Field errors for an Ingress spec: rule hosts, path types and paths, class name. */
export function validateIngressSpec(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = object.spec;
  if (!isPlainObject(spec)) return errors;
  if (typeof spec.ingressClassName === 'string') {
    errors.push(...validateName(spec.ingressClassName, 'subdomain', 'spec.ingressClassName'));
  }
  const rules = Array.isArray(spec.rules) ? (spec.rules as unknown[]) : [];
  rules.forEach((rule, ruleIndex) => {
    if (!isPlainObject(rule)) return;
    const base = `spec.rules[${ruleIndex}]`;
    if (typeof rule.host === 'string' && rule.host !== '') {
      const host = rule.host.startsWith('*.') ? rule.host.slice(2) : rule.host;
      if (/^[0-9.]+$/.test(host) || host.includes(':')) {
        errors.push({
          type: 'FieldValueInvalid',
          field: `${base}.host`,
          value: rule.host,
          detail: 'must be a DNS name, not an IP address',
        });
      } else if (!isDnsSubdomain(host)) {
        errors.push({
          type: 'FieldValueInvalid',
          field: `${base}.host`,
          value: rule.host,
          detail: SUBDOMAIN_GRAMMAR_MESSAGE,
        });
      }
    }
    const http = rule.http;
    if (!isPlainObject(http)) return;
    const paths = Array.isArray(http.paths) ? (http.paths as unknown[]) : [];
    paths.forEach((path, pathIndex) => {
      if (!isPlainObject(path)) return;
      const field = `${base}.http.paths[${pathIndex}]`;
      if (path.pathType === undefined || path.pathType === null) {
        errors.push({
          type: 'FieldValueRequired',
          field: `${field}.pathType`,
          detail: 'pathType must be specified',
        });
      } else if (typeof path.pathType !== 'string' || !pathTypes.includes(path.pathType)) {
        errors.push({
          type: 'FieldValueNotSupported',
          field: `${field}.pathType`,
          value: path.pathType,
          detail: `supported values: "Exact", "ImplementationSpecific", "Prefix"`,
        });
      }
      if (
        (path.pathType === 'Exact' || path.pathType === 'Prefix') &&
        (typeof path.path !== 'string' || !path.path.startsWith('/'))
      ) {
        errors.push({
          type: 'FieldValueInvalid',
          field: `${field}.path`,
          value: path.path ?? '',
          detail: 'must be an absolute path',
        });
      }
      if (!isPlainObject(path.backend)) {
        errors.push({ type: 'FieldValueRequired', field: `${field}.backend`, detail: '' });
      }
    });
  });
  return errors;
}

/** Field errors for an IngressClass spec: `spec.controller` is required and domain-prefixed. */
/** IngressClass `spec.controller` cannot change once set, as in Kubernetes. */
export function validateIngressClassUpdate(object: KubeObject, previous: KubeObject): FieldError[] {
  const controllerOf = (candidate: KubeObject) =>
    isPlainObject(candidate.spec) ? candidate.spec.controller : undefined;
  const controller = controllerOf(object);
  if (controller === controllerOf(previous)) return [];
  return [
    { type: 'FieldValueInvalid', field: 'spec.controller', value: controller, detail: 'field is immutable' },
  ];
}

export function validateIngressClassSpec(object: KubeObject): FieldError[] {
  const spec = isPlainObject(object.spec) ? object.spec : {};
  const controller = spec.controller;
  if (typeof controller !== 'string' || controller === '') {
    return [{ type: 'FieldValueRequired', field: 'spec.controller', detail: '' }];
  }
  if (controller.length > 250) {
    return [
      { type: 'FieldValueTooLong', field: 'spec.controller', detail: 'may not be more than 250 bytes' },
    ];
  }
  const slash = controller.indexOf('/');
  if (slash <= 0 || !isDnsSubdomain(controller.slice(0, slash)) || slash === controller.length - 1) {
    return [
      {
        type: 'FieldValueInvalid',
        field: 'spec.controller',
        value: controller,
        detail: 'must be a domain-prefixed path (such as "acme.io/foo")',
      },
    ];
  }
  return [];
}

/** Field errors for a Lease spec: a positive duration and a non-negative transition count. */
export function validateLeaseSpec(object: KubeObject): FieldError[] {
  const spec = isPlainObject(object.spec) ? object.spec : {};
  const errors: FieldError[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null) {
    const seconds = spec.leaseDurationSeconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds <= 0) {
      errors.push({
        type: 'FieldValueInvalid',
        field: 'spec.leaseDurationSeconds',
        value: seconds,
        detail: 'must be greater than 0',
      });
    }
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null) {
    const transitions = spec.leaseTransitions;
    if (typeof transitions !== 'number' || !Number.isInteger(transitions) || transitions < 0) {
      errors.push({
        type: 'FieldValueInvalid',
        field: 'spec.leaseTransitions',
        value: transitions,
        detail: 'must be greater than or equal to 0',
      });
    }
  }
  return errors;
}
