import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithAgent, ownerWithServer, requester, uniqueServerName } from '../test/build-test-app.ts';
import { serviceArgs } from '../../../../test-support/service-command.ts';

/** The operator's side of nodes and servers, through the API and through `npm run operator`. */
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../../..');
let env: Awaited<ReturnType<typeof buildTestAppWithAgent>>;

beforeAll(async () => {
  env = await buildTestAppWithAgent();
});
afterAll(async () => {
  await env.cleanup();
});

const asOperator = () => ({ authorization: `Bearer ${env.t.config.operatorToken}` });

/** `npm run operator -- …` as an operator types it, next to this API. */
async function operator(...args: string[]): Promise<string> {
  const port = (env.t.app.server.address() as AddressInfo).port;
  const { stdout } = await run(process.execPath, [...serviceArgs('api', 'cli'), ...args], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATA_DIR: env.t.dataDir, LOG_LEVEL: 'silent' },
  });
  return stdout;
}

describe('operator: nodes and servers', () => {
  it('lists nodes only for the operator token', async () => {
    const send = requester(env.t.app);
    expect((await send('GET', '/v1/operator/nodes')).json().status).toBe('NO_PERMISSION');
    const nodes = (await send('GET', '/v1/operator/nodes', undefined, undefined, asOperator())).json();
    expect(nodes.result).toEqual([expect.objectContaining({ nodeId: 'test-node', connected: true, draining: false, capacity: 50 })]);
    expect(await operator('nodes')).toMatch(
      /^NODE\s+STATUS\s+DRAIN\s+RUNNING\s+QUEUED\s+SERVERS\ntest-node\s+connected\s+-\s+0\/50\s+0\s+\d+$/m,
    );
  });

  it('finds a server by a part of its name, with its owner, node and state; a typed % is only a %', async () => {
    const { cookie, id } = await ownerWithServer(env.t, 'findme');
    const send = requester(env.t.app);
    const part = ((await send('GET', `/v1/server/${id}`, cookie)).json().result.name as string).slice(2, 9);
    const found = (await send('GET', `/v1/operator/servers?name=${part}`, undefined, undefined, asOperator())).json().result;
    expect(found).toEqual([expect.objectContaining({ serverId: id, nodeId: 'test-node', state: 'offline' })]);
    expect(found[0].ownerEmail).toMatch(/^findme.*@example\.com$/);
    expect((await send('GET', `/v1/operator/servers?name=%25`, undefined, undefined, asOperator())).json().result).toEqual([]);
    expect(await operator('servers', part)).toContain(id);
    expect(await operator('servers', 'no-such-name-here')).toContain('No server name contains "no-such-name-here".');
  });

  it('drains a node: no new server is placed there, its servers still start; undrained it takes them again', async () => {
    const send = requester(env.t.app);
    const { cookie, id } = await ownerWithServer(env.t, 'drained');
    expect(await operator('nodes', 'drain', 'test-node')).toContain('test-node takes no new servers');
    const refused = await send('POST', '/v1/server/create', cookie, { serverName: uniqueServerName('drain') });
    expect(refused.json().status).toBe('NO_SERVERS_AVAILABLE');
    expect((await send('POST', `/v1/server/${id}/start`, cookie, {})).json().status).toBe('SUCCESS');
    await send('POST', `/v1/server/${id}/kill`, cookie, {});

    expect(await operator('nodes', 'undrain', 'test-node')).toContain('test-node takes new servers again.');
    expect((await send('POST', '/v1/server/create', cookie, { serverName: uniqueServerName('drain') })).json().status).toBe('SUCCESS');
    const unknown = await send('POST', '/v1/operator/nodes/drain', undefined, { nodeId: 'nope', draining: true }, asOperator());
    expect(unknown.json()).toEqual(expect.objectContaining({ status: 'NOT_FOUND', message: 'No node with the id nope (see AGENTS).' }));
  });
});
