import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAgent, type AgentProcess } from './test/agent-process.ts';
import { buildTestApp, requester, uniqueServerName, verifiedOwner, type Send } from './test/build-test-app.ts';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';

const unreachable = {
  status: 'NODE_UNAVAILABLE',
  message: 'The machine that runs this server cannot be reached right now. Please try again in a minute.',
};

/**
 * A real agent whose socket reaches the API, while the address the API has for its HTTP API answers
 * nothing (a port no one listens on): the node is connected yet cannot be reached.
 */
let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;
let nodeHttpPort: number;

beforeAll(async () => {
  agent = await prepareAgent();
  nodeHttpPort = await freePort();
  t = await buildTestApp({ AGENTS: JSON.stringify([{ ...agent.nodeConfig, url: `http://127.0.0.1:${nodeHttpPort}` }]) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  agent.start(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
  await until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
});
afterAll(async () => {
  await t.cleanup();
  await agent.stop();
});

const send: Send = (...args) => requester(t.app)(...args);
const owner = () => verifiedOwner(t, 'nodes');

const uniqueName = () => uniqueServerName('n');

describe('a node whose answers have the wrong shape', () => {
  it("is the node's fault, logged and answered INTERNAL_ERROR — never INVALID_INPUT, as if the user erred", async () => {
    const cookie = await owner();
    // Created while the node's HTTP address answers nothing; the answers below come from what listens there next.
    const created = (await send('POST', '/v1/server/create', cookie, { serverName: uniqueName() })).json().result;
    const impostor = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'SUCCESS', result: { unexpected: true } }));
    });
    await new Promise<void>((resolve) => impostor.listen(nodeHttpPort, '127.0.0.1', resolve));
    try {
      for (const url of [`/v1/server/${created.serverId}/files/list?path=/`, `/v1/server/${created.serverId}/files/usage`]) {
        const res = await send('GET', url, cookie);
        expect(res.statusCode, url).toBe(500);
        expect(res.json().status, url).toBe('INTERNAL_ERROR');
      }
      const extracted = await send('POST', `/v1/server/${created.serverId}/files/extract`, cookie, { path: '/a.zip' });
      expect(extracted.json().status).toBe('INTERNAL_ERROR');
    } finally {
      await new Promise<void>((resolve) => impostor.close(() => resolve()));
    }
  });
});

describe('a node that cannot be reached', () => {
  it('answers 502 NODE_UNAVAILABLE for actions on its servers, never "at capacity"', async () => {
    const cookie = await owner();
    const created = await send('POST', '/v1/server/create', cookie, { serverName: uniqueName() });
    expect(created.json().status).toBe('SUCCESS');
    const id = created.json().result.serverId as string;

    for (const [method, url, body] of [
      ['GET', `/v1/server/${id}/files/list?path=/`, undefined],
      ['GET', `/v1/server/${id}/files/content?path=/server.properties`, undefined],
      ['PUT', `/v1/server/${id}/files/content`, { path: '/a.txt', content: 'hello' }],
      ['POST', `/v1/server/${id}/start`, {}],
      ['DELETE', `/v1/server/${id}`, undefined],
    ] as const) {
      const res = await send(method, url, cookie, body);
      expect(res.statusCode, url).toBe(502);
      expect(res.json(), url).toEqual(unreachable);
    }
    // The failed start left the server offline, and it is still listed (its files were not removed).
    expect((await send('GET', `/v1/server/${id}`, cookie)).json().result).toMatchObject({ serverId: id, state: 'offline' });
  });

  it('answers NODE_UNAVAILABLE once the node is gone, and NO_SERVERS_AVAILABLE only when creating', async () => {
    const cookie = await owner();
    const id = (await send('POST', '/v1/server/create', cookie, { serverName: uniqueName() })).json().result.serverId as string;
    await agent.stop();
    await until(
      async () => (await send('GET', '/healthz')).json().result.agents,
      (a: string[]) => a.length === 0,
    );
    for (const [method, url, body] of [
      ['GET', `/v1/server/${id}/files/list?path=/`, undefined],
      // No download link is made for a node that is not connected (the browser could not follow it).
      ['GET', `/v1/server/${id}/files/download?path=/server.properties`, undefined],
      ['POST', `/v1/server/${id}/start`, {}],
      ['DELETE', `/v1/server/${id}`, undefined],
    ] as const) {
      const res = await send(method, url, cookie, body);
      expect(res.statusCode, url).toBe(502);
      expect(res.json().status, url).toBe('NODE_UNAVAILABLE');
    }
    const more = await send('POST', '/v1/server/create', cookie, { serverName: uniqueName() });
    expect(more.statusCode).toBe(503);
    expect(more.json().status).toBe('NO_SERVERS_AVAILABLE');
  });
});
