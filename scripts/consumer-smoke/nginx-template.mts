// The README's examples up to the nginx.conf text, the data-plane body and the request metrics' text,
// without nginx itself.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildConfiguration,
  createDataPlaneUpdate,
  labelSeriesOf,
  luaDirectory,
  luaFiles,
  parseRequestMetrics,
  renderNginxConf,
  renderRequestMetrics,
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
// The request metrics section: an answer of GET /metrics/requests as ingress-nginx's metric text.
const metrics = parseRequestMetrics('d=0.1,1\nn\tweb/root\t200\tGET\t\tshop.example.com\t3\n');
const controller = {
  controller_namespace: 'ingress',
  controller_class: 'k8s.io/ingress',
  controller_pod: 'pod-1',
};
const labelsOf = labelSeriesOf(table, controller, {}, metrics.series);
const text = [...renderRequestMetrics(metrics, labelsOf)].join('');
assert.match(
  text,
  /^nginx_ingress_controller_requests\{status="200",method="GET",path="\/",namespace="shop",ingress="",service="shop\/web:80",canary="",host="shop.example.com",controller_namespace="ingress",controller_class="k8s.io\/ingress",controller_pod="pod-1"\} 3$/m,
);
