import type { AddressInfo } from 'node:net';
import { offlineUuid } from '@spawnpoint/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester, verifiedOwner, type Send } from '../test/build-test-app.ts';
import { until } from '../../../../test-support/until.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;

beforeAll(async () => {
  agent = await prepareAgent();
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]) });
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

describe('players', () => {
  it('edits the files of a stopped server in the game formats, and shows them', async () => {
    const { cookie, id } = await ownerWithServer(t, 'players');
    const players = `/v1/server/${id}/players`;
    expect((await send('GET', players, cookie)).json()).toEqual({
      status: 'SUCCESS',
      result: { running: false, online: [], whitelistEnabled: false, operators: [], whitelist: [], bans: [], problems: [] },
    });

    expect((await send('POST', players, cookie, { action: 'whitelist-add', name: 'Friend' })).json().result.whitelist).toEqual([
      { name: 'Friend', uuid: offlineUuid('Friend') },
    ]);
    await send('POST', players, cookie, { action: 'op', name: 'Alex' });
    await send('POST', players, cookie, { action: 'ban', name: 'Griefer', reason: 'Broke the spawn' });
    const after = (await send('POST', players, cookie, { action: 'whitelist', enabled: true })).json().result;
    expect(after).toMatchObject({
      whitelistEnabled: true,
      operators: [{ name: 'Alex', uuid: offlineUuid('Alex'), level: 4 }],
      bans: [{ name: 'Griefer', uuid: offlineUuid('Griefer'), reason: 'Broke the spawn', expires: 'forever' }],
    });
    const file = async (path: string) =>
      (await send('GET', `/v1/server/${id}/files/content?path=${path}`, cookie)).json().result.content as string;
    expect(JSON.parse(await file('/whitelist.json'))).toEqual([{ uuid: offlineUuid('Friend'), name: 'Friend' }]);
    expect(JSON.parse(await file('/ops.json'))).toEqual([
      { uuid: offlineUuid('Alex'), name: 'Alex', level: 4, bypassesPlayerLimit: false },
    ]);
    expect(await file('/server.properties')).toContain('white-list=true');

    await send('POST', players, cookie, { action: 'pardon', name: 'griefer' });
    await send('POST', players, cookie, { action: 'deop', name: 'ALEX' });
    const cleared = (await send('GET', players, cookie)).json().result;
    expect(cleared.bans).toEqual([]);
    expect(cleared.operators).toEqual([]);

    // Nobody to kick on a stopped server.
    const kick = await send('POST', players, cookie, { action: 'kick', name: 'Friend' });
    expect(kick.statusCode).toBe(409);
    expect(kick.json()).toEqual({ status: 'INVALID_STATE', message: 'The server is not running, so nobody is online to kick.' });
  });

  it('refuses bad input with field messages, and other accounts', async () => {
    const { cookie, id } = await ownerWithServer(t, 'playbad');
    const players = `/v1/server/${id}/players`;
    const bad = async (body: unknown) => {
      const res = await send('POST', players, cookie, body);
      expect(res.statusCode).toBe(400);
      return res.json();
    };
    expect(await bad({ action: 'op', name: 'two words' })).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { name: 'A player name is 1 to 16 letters, digits and underscores.' },
    });
    expect(await bad({ action: 'op', name: 'x'.repeat(17) })).toMatchObject({ fields: { name: expect.any(String) } });
    expect(await bad({ action: 'op', name: '' })).toMatchObject({ fields: { name: 'The player name field is required' } });
    expect(await bad({ action: 'ban', name: 'Steve', reason: 'line one\nstop' })).toMatchObject({
      fields: { reason: 'The reason must be one line of text.' },
    });
    expect(await bad({ action: 'ban', name: 'Steve', reason: 'r'.repeat(101) })).toMatchObject({
      fields: { reason: 'The reason field may not be greater than 100 characters' },
    });
    expect((await bad({ action: 'explode', name: 'Steve' })).status).toBe('INVALID_INPUT');
    expect((await bad({ action: 'whitelist', enabled: 'yes' })).status).toBe('INVALID_INPUT');

    const stranger = await verifiedOwner(t, 'playstr');
    expect((await send('GET', players, stranger)).json().status).toBe('NOT_FOUND');
    expect((await send('POST', players, stranger, { action: 'op', name: 'Steve' })).json().status).toBe('NOT_FOUND');
    expect((await send('GET', players)).json().status).toBe('NOT_AUTHENTICATED');
  });

  it('sends changes to a running server through its console, and the game keeps the files', async () => {
    const { cookie, id } = await ownerWithServer(t, 'playlive');
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      async () => (await send('GET', `/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'online',
    );
    const res = (await send('POST', `/v1/server/${id}/players`, cookie, { action: 'op', name: 'Alex' })).json();
    expect(res.result).toMatchObject({ running: true, operators: [{ name: 'Alex', uuid: offlineUuid('Alex'), level: 4 }] });
    expect((await send('POST', `/v1/server/${id}/stop`, cookie)).json().status).toBe('SUCCESS');
  });
});

describe('player properties', () => {
  it('offers pvp and the whitelist for the built-in runtime, and refuses what only Java servers honour', async () => {
    const { cookie, id } = await ownerWithServer(t, 'plprops');
    const url = `/v1/server/${id}/properties`;
    const current = (await send('GET', url, cookie)).json().result;
    expect(current).toMatchObject({ pvp: true, 'white-list': false });
    // Keys the built-in runtime does not honour are not offered.
    expect(current).not.toHaveProperty('spawn-protection');
    expect(current).not.toHaveProperty('allow-nether');
    const saved = (await send('PUT', url, cookie, { pvp: false, 'white-list': true })).json();
    expect(saved.result).toMatchObject({ pvp: false, 'white-list': true });
    const text = (await send('GET', `/v1/server/${id}/files/content?path=/server.properties`, cookie)).json().result.content as string;
    expect(text).toContain('pvp=false');
    expect(text).toContain('white-list=true');
    // The Players page reads the same switch.
    expect((await send('GET', `/v1/server/${id}/players`, cookie)).json().result.whitelistEnabled).toBe(true);

    const javaOnly = await send('PUT', url, cookie, { 'spawn-protection': 4, 'allow-nether': false });
    expect(javaOnly.statusCode).toBe(400);
    expect(javaOnly.json()).toMatchObject({
      status: 'INVALID_INPUT',
      fields: {
        'spawn-protection': 'The built-in runtime does not honour spawn-protection; only Java servers do.',
        'allow-nether': 'The built-in runtime does not honour allow-nether; only Java servers do.',
      },
    });
    expect((await send('PUT', url, cookie, { 'spawn-protection': 100 })).json().fields).toEqual({
      'spawn-protection': 'The spawn protection is 0 (off) to 64 blocks',
    });
    expect((await send('PUT', url, cookie, { pvp: 'no' })).json().status).toBe('INVALID_INPUT');
  });
});
