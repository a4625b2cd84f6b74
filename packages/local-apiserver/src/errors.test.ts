import { describe, expect, it } from 'vitest';
import {
  buildAlreadyExistsStatus,
  buildConflictStatus,
  buildDeleteSuccessStatus,
  buildExpiredStatus,
  buildInvalidStatus,
  buildNotFoundStatus,
  buildUnsupportedMediaTypeStatus,
} from './errors.js';

const ingresses = { group: 'networking.k8s.io', plural: 'ingresses', kind: 'Ingress' };
const pods = { group: '', plural: 'pods', kind: 'Pod' };

describe('buildNotFoundStatus', () => {
  it('names the qualified plural resource and puts the plural into details.kind', () => {
    expect(JSON.stringify(buildNotFoundStatus(ingresses, 'a'))).toBe(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'ingresses.networking.k8s.io "a" not found',
        reason: 'NotFound',
        details: { name: 'a', group: 'networking.k8s.io', kind: 'ingresses' },
        code: 404,
      }),
    );
  });

  it('omits the group for core resources', () => {
    expect(buildNotFoundStatus(pods, 'p')).toMatchObject({
      message: 'pods "p" not found',
      details: { name: 'p', kind: 'pods' },
    });
    expect(buildNotFoundStatus(pods, 'p').details).not.toHaveProperty('group');
  });
});

describe('buildConflictStatus', () => {
  it('uses the optimistic-concurrency message when no detail is given', () => {
    expect(buildConflictStatus(ingresses, 'a')).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on ingresses.networking.k8s.io "a": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'a', group: 'networking.k8s.io', kind: 'ingresses' },
    });
  });
});

describe('buildAlreadyExistsStatus', () => {
  it('answers 409 AlreadyExists', () => {
    expect(buildAlreadyExistsStatus(ingresses, 'a')).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'ingresses.networking.k8s.io "a" already exists',
    });
  });
});

describe('buildInvalidStatus', () => {
  it('puts the Kind into details.kind and one cause per field error', () => {
    const status = buildInvalidStatus(ingresses, 'a', [
      { type: 'FieldValueInvalid', field: 'spec.rules[0].host', value: 'A', detail: 'bad host' },
    ]);
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Ingress.networking.k8s.io "a" is invalid: spec.rules[0].host: Invalid value: "A": bad host',
      reason: 'Invalid',
      details: {
        name: 'a',
        group: 'networking.k8s.io',
        kind: 'Ingress',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "A": bad host',
            field: 'spec.rules[0].host',
          },
        ],
      },
      code: 422,
    });
  });

  it('brackets several errors in the message', () => {
    const status = buildInvalidStatus(pods, 'p', [
      { type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' },
      { type: 'FieldValueForbidden', field: 'metadata.finalizers', detail: 'no' },
    ]);
    expect(status.message).toBe(
      'Pod "p" is invalid: [metadata.name: Required value: name or generateName is required, metadata.finalizers: Forbidden: no]',
    );
  });
});

describe('buildExpiredStatus', () => {
  it('answers 410 Expired', () => {
    expect(buildExpiredStatus('too old resource version: 1 (5)')).toMatchObject({
      code: 410,
      reason: 'Expired',
    });
  });
});

describe('buildUnsupportedMediaTypeStatus', () => {
  it('lists the accepted media types', () => {
    expect(
      buildUnsupportedMediaTypeStatus(['application/json-patch+json', 'application/merge-patch+json']),
    ).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json',
    });
  });
});

describe('buildDeleteSuccessStatus', () => {
  it('names the deleted object and has no code', () => {
    expect(buildDeleteSuccessStatus(ingresses, 'a', 'u1')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'a', group: 'networking.k8s.io', kind: 'ingresses', uid: 'u1' },
    });
  });
});
