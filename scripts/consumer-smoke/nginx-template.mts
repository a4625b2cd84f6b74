// The README's example up to the nginx.conf text and the data-plane body, without nginx itself.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildConfiguration,
  createDataPlaneUpdate,
  luaDirectory,
  luaFiles,
  renderNginxConf,
} from '@ingresskit/nginx-template';
import { createRouteTableBuilder } from '@ingresskit/route-model';

const builder = createRouteTableBuilder({ listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] });
builder.setContribution({
  source: { kind: 'Demo', namespace: 'shop', name: 'web' },
  hosts: [
    {
      hostname: 'shop.example.com',
      routes: [
        {
          id: 'web/root',
          origin: { kind: 'Demo', namespace: 'shop', name: 'web', createdAt: 0, index: [0] },
          match: { path: { type: 'PathPrefix', value: '/' } },
          action: { type: 'forward', backends: [{ backend: 'shop/web:80', weight: 1 }] },
          policy: {},
        },
      ],
    },
  ],
  tls: [],
});
builder.setBackend({ id: 'shop/web:80', endpoints: [{ address: '10.0.0.7', port: 8080 }] });
builder.commit();
const table = builder.table();

const socketPath = '/run/ingresskit/control/ingresskit.sock';
const { configuration, problems } = buildConfiguration(table, { controlSocketPath: socketPath });
assert.deepEqual(problems, []);
const conf = renderNginxConf(configuration);
assert.match(conf, /listen\s+[^;]*80/);
assert.ok(conf.includes(socketPath));
const body = createDataPlaneUpdate(table);
assert.ok(JSON.stringify(body).includes('shop.example.com'));
// The Lua modules nginx.conf requires ship inside the package, next to dist/.
for (const file of luaFiles) assert.ok(existsSync(join(luaDirectory, file.relativePath)), file.path);
