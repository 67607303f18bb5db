import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { slugOf } from '#web/tools/instanceTools/instanceWebTools.ts';
import { sameOrigin } from '#web/tools/toolOrigin.ts';
import type { ToolProxy } from '#web/tools/toolProxy.ts';
import { toolFor } from '#web/tools/webTools.ts';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('per-instance tool routing (web/tools/instanceTools/instanceWebTools.ts)', () => {
  it('reads the slug of a tool path, and none from a path no instance can have', () => {
    expect(slugOf('/instances/acme-dev/editor/proxy/tree?x=1')).to.equal('acme-dev');
    expect(slugOf('/instances/acme-dev/code/proxy/')).to.equal('acme-dev');
    for (const url of ['/instances/Acme/editor/proxy/', '/instances/%00/editor/proxy/', `/instances/${'a'.repeat(65)}/editor/proxy/`, '/mails/', undefined]) expect(slugOf(url), String(url)).to.equal(null);
  });

  it('finds the tool of an upgrade path whose prefix has a :slug segment, and only of that kind', () => {
    const proxy = {} as ToolProxy;
    const tools = [
      { prefix: '/mails', proxy },
      { prefix: '/instances/:slug/editor/proxy', proxy },
    ];
    expect(toolFor(tools, '/instances/acme-dev/editor/proxy/api/kernels/1/channels?session_id=2')).to.equal(tools[1]);
    expect(toolFor(tools, '/instances/acme-dev/editor/proxy')).to.equal(tools[1]);
    expect(toolFor(tools, '/mails/socket.io/')).to.equal(tools[0]);
    for (const url of ['/instances/acme-dev/editor/proxyx', '/instances/acme-dev/code/proxy/', '/instances/a/b/editor/proxy/', '/mailsx']) expect(toolFor(tools, url), url).to.equal(undefined);
  });

  it('lets through only the tool host\'s own origin, and refuses other sites, sibling tools, web and requests naming no origin', () => {
    const own = 'http://code-acme.tools.localhost:8084';
    expect(sameOrigin(request({ origin: own }), own)).to.equal(true);
    expect(sameOrigin(request({ 'sec-fetch-site': 'same-origin' }), own)).to.equal(true);
    expect(sameOrigin(request({ origin: own, 'sec-fetch-site': 'same-origin' }), own)).to.equal(true);
    expect(sameOrigin(request({}), own), 'no Origin, no Sec-Fetch-Site').to.equal(false);
    expect(sameOrigin(request({ origin: 'http://editor-acme.tools.localhost:8084' }), own), 'a sibling tool').to.equal(false);
    expect(sameOrigin(request({ origin: 'http://127.0.0.1:8081' }), own), 'web').to.equal(false);
    expect(sameOrigin(request({ origin: 'https://code-acme.tools.localhost:8084' }), own), 'another scheme').to.equal(false);
    expect(sameOrigin(request({ origin: own, 'sec-fetch-site': 'same-site' }), own)).to.equal(false);
    expect(sameOrigin(request({ origin: own, 'sec-fetch-site': 'cross-site' }), own)).to.equal(false);
    expect(sameOrigin(request({ origin: 'null' }), own)).to.equal(false);
  });
});
