/**
 * Redirect ports when nginx binds other ports than the listeners name (a Service maps 443 to
 * 8443, say): Locations name the listener's port, and leave out the default port of the scheme.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteTable } from '@ingresskit/route-model';
import {
  allocateListenerPorts,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';

let plane: DataPlane;
let table: RouteTable;

beforeAll(async () => {
  const bound = await allocateListenerPorts();
  table = {
    listeners: [
      { name: 'web', port: 80, protocol: 'HTTP' },
      { name: 'websecure', port: 443, protocol: 'HTTPS' },
    ],
    virtualHosts: [
      {
        hostname: 'a.example.com',
        hostnameMatch: 'exact',
        routes: [
          createTestRoute('secure', {
            match: { path: { type: 'PathPrefix', value: '/secure' } },
            policy: { redirectToHttps: { statusCode: 308 } },
          }),
          createTestRoute('elsewhere', {
            match: { path: { type: 'PathPrefix', value: '/elsewhere' } },
            action: { type: 'redirect', redirect: { statusCode: 302, hostname: 'b.example.com' } },
          }),
          createTestRoute('to-http', {
            match: { path: { type: 'PathPrefix', value: '/to-http' } },
            action: { type: 'redirect', redirect: { statusCode: 301, scheme: 'http' } },
          }),
        ],
      },
    ],
    tls: [],
    certificates: [],
    backends: [],
  };
  plane = await startDataPlane({
    table,
    ports: bound,
    render: { listenPorts: { 80: bound.http, 443: bound.https } },
  });
  expect((await plane.push(table)).status).toBe(201);
});

afterAll(async () => {
  await plane?.stop();
});

async function location(path: string, tls = false): Promise<string> {
  const response = await plane.request({ host: 'a.example.com', path, tls });
  return `${response.status} ${String(response.headers.location)}`;
}

describe('redirects behind a port mapping', () => {
  it('sends plain HTTP to the HTTPS listener without a port when it is 443', async () => {
    expect(await location('/secure/x?y=1')).toBe('308 https://a.example.com/secure/x?y=1');
  });

  it('keeps the port of the listener a request came in on, and leaves out the default one', async () => {
    expect(await location('/elsewhere/x', true)).toBe('302 https://b.example.com/elsewhere/x');
    expect(await location('/elsewhere/x')).toBe('302 http://b.example.com/elsewhere/x');
    expect(await location('/to-http', true)).toBe('301 http://a.example.com/to-http');
  });
});
