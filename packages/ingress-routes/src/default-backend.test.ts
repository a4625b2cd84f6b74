import { describe, expect, it } from 'vitest';
import {
  createDefaultBackendContribution,
  createDefaultBackendRoute,
  InvalidServiceReferenceError,
} from './index.js';

describe('createDefaultBackendRoute', () => {
  it('answers 404 without a default backend Service', () => {
    expect(createDefaultBackendRoute(undefined)).toEqual({
      id: 'Controller/default-backend',
      origin: { kind: 'Controller', namespace: '', name: 'default-backend', createdAt: 0, index: [] },
      match: { path: { type: 'PathPrefix', value: '/' } },
      action: { type: 'respond', statusCode: 404 },
      policy: { redirectToHttps: { statusCode: 308, onlyIfHostHasTls: true } },
    });
  });

  it('leaves its requests out of the access log when accessLog is false', () => {
    expect(createDefaultBackendRoute(undefined, { accessLog: false }).policy).toEqual({
      redirectToHttps: { statusCode: 308, onlyIfHostHasTls: true },
      accessLog: false,
    });
  });

  it.each([
    [{ namespace: 'system', name: 'fallback', port: 8080 }, 'system/fallback:8080'],
    [{ namespace: 'system', name: 'fallback', port: 'http' }, 'system/fallback:http'],
  ])('forwards to the backend id of the Service port %j', (reference, backend) => {
    const route = createDefaultBackendRoute(reference);
    expect(route.action).toEqual({ type: 'forward', backends: [{ backend, weight: 1 }] });
    expect(route.origin.field).toBe('--default-backend-service');
  });

  it.each([
    { namespace: 'Bad NS', name: 'x', port: 80 },
    { namespace: 'system', name: 'a;b', port: 80 },
    { namespace: 'system', name: 'x', port: 0 },
    { namespace: 'system', name: 'x', port: 'not_a_port' },
  ])('throws InvalidServiceReferenceError for %j', (reference) => {
    expect(() => createDefaultBackendRoute(reference)).toThrow(InvalidServiceReferenceError);
    try {
      createDefaultBackendRoute(reference);
    } catch (error) {
      expect(error).toMatchObject({
        name: 'InvalidServiceReferenceError',
        code: 'ERR_INVALID_SERVICE_REFERENCE',
      });
    }
  });
});

describe('createDefaultBackendContribution', () => {
  it('contributes the catch-all host, asking for the table default', () => {
    expect(createDefaultBackendContribution()).toEqual({
      source: { kind: 'Controller', namespace: '', name: 'default-backend' },
      hosts: [{ hostname: '*', routes: [], fallback: 'table-default' }],
      tls: [],
    });
  });
});
