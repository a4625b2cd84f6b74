/**
 * configuration-snippet end to end (local API server, the controller, nginx, real HTTP to a
 * backend that echoes the request headers it got): with --allow-snippet-directives, the header
 * changes of an allowed snippet are served; a snippet with a directive not allowed, or a variable,
 * leaves out its own Ingress only, with an Event naming the annotation and the directive; without
 * the flag every snippet leaves its Ingress out, as before.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, listIngressNotes, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, serviceManifests } from './harness.js';

/** Answers with the request headers it got, and headers a snippet may remove. */
const echoHeaders: RequestListener = (request, response) => {
  response.writeHead(200, {
    'content-type': 'application/json',
    'x-powered-by': 'node',
    'x-internal': 'yes',
  });
  response.end(JSON.stringify(request.headers));
};

const HEADERS_SNIPPET = [
  '# vetted by the platform team',
  'more_set_headers "X-Frame-Options: DENY" \'X-Snippet: on; not a directive\';',
  'more_clear_headers X-Powered-By;',
  'add_header X-Added one always;',
  'proxy_set_header X-Team "blue";',
  'more_clear_input_headers X-Drop;',
].join('\n');

const ALLOWED = [
  'more_set_headers',
  'more_clear_headers',
  'add_header',
  'proxy_set_header',
  'more_clear_input_headers',
];

function objectsWith(listen: (handler: RequestListener) => Promise<number>) {
  return async () => [
    ...serviceManifests('echo', []),
    endpointSliceManifest('echo-1', 'echo', await listen(echoHeaders)),
    annotatedIngress('open.test', 'echo', {}),
    annotatedIngress('snippet.test', 'echo', { [`${A}configuration-snippet`]: HEADERS_SNIPPET }),
    annotatedIngress('hidden.test', 'echo', {
      [`${A}configuration-snippet`]: 'proxy_hide_header X-Internal;',
    }),
    annotatedIngress('variable.test', 'echo', { [`${A}configuration-snippet`]: 'add_header X-Host $host;' }),
  ];
}

describe('with --allow-snippet-directives', () => {
  const testCase = useAnnotationsCase({
    config: { podName: 'snippets', allowedSnippetDirectives: ALLOWED },
    readyHost: 'snippet.test',
    objects: async ({ listen }) => objectsWith(listen)(),
  });

  it("serves the snippet's response and request header changes", async () => {
    const response = await testCase().send('snippet.test', {
      headers: { 'X-Drop': 'secret', 'X-Keep': 'k' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-snippet']).toBe('on; not a directive');
    expect(response.headers['x-added']).toBe('one');
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers['x-internal']).toBe('yes');
    const received = JSON.parse(response.body) as Record<string, string>;
    expect(received['x-team']).toBe('blue');
    expect(received['x-drop']).toBeUndefined();
    expect(received['x-keep']).toBe('k');
  });

  it('leaves out only the Ingress whose snippet holds a directive not allowed, naming it', async () => {
    expect((await testCase().send('hidden.test')).status).toBe(404);
    expect((await testCase().send('open.test')).status).toBe(200);
    expect((await testCase().send('open.test')).headers['x-frame-options']).toBeUndefined();
    expect(await listIngressNotes(testCase(), 'hidden.test')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /configuration-snippet" cannot be translated \(line 1, directive "proxy_hide_header": it is not allowed by the controller's --allow-snippet-directives\)/,
        ),
      ]),
    );
  });

  it('leaves out the Ingress whose snippet holds a variable, and serves it once fixed, without a reload', async () => {
    const { controller, server } = testCase();
    expect((await testCase().send('variable.test')).status).toBe(404);
    expect(await listIngressNotes(testCase(), 'variable.test')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/directive "add_header": the value of "X-Host" holds "\$"/),
      ]),
    );
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([
      annotatedIngress('variable.test', 'echo', {
        [`${A}configuration-snippet`]: 'add_header X-Host fixed;',
      }),
    ]);
    await eventually(async () => {
      const response = await testCase().send('variable.test');
      expect(response.status).toBe(200);
      expect(response.headers['x-host']).toBe('fixed');
    });
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });
});

describe('without --allow-snippet-directives', () => {
  const testCase = useAnnotationsCase({
    config: { podName: 'no-snippets' },
    readyHost: 'open.test',
    objects: async ({ listen }) => objectsWith(listen)(),
  });

  it('leaves out every Ingress with a snippet, with an Event naming the flag, and serves the others', async () => {
    expect((await testCase().send('snippet.test')).status).toBe(404);
    expect((await testCase().send('open.test')).status).toBe(200);
    expect(await listIngressNotes(testCase(), 'snippet.test')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /annotation "configuration-snippet" is not supported; the Ingress is not served without it, since it is raw nginx configuration, accepted only when the controller's --allow-snippet-directives allows every directive it holds/,
        ),
      ]),
    );
  });
});
