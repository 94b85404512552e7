import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backups, users } from '../db/schema.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, cookieFrom, uniqueEmail, uniqueIp } from '../test/build-test-app.ts';
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

function send(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  cookie?: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method,
    url,
    headers: { ...(cookie ? { cookie } : {}), ...headers },
    ...(payload !== undefined ? { payload: payload as string } : {}),
    remoteAddress: uniqueIp(),
  });
}

let n = 0;
async function ownerWithServer() {
  const res = await send('POST', '/v1/auth/register', undefined, { emailAddress: uniqueEmail('files'), password: 'long enough password' });
  const userId = res.json().result.userId;
  await t.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  t.ctx.sessions.forgetUser(userId);
  const cookie = cookieFrom(res.headers['set-cookie']);
  const server = (await send('POST', '/v1/server/create', cookie, { serverName: `f${Date.now().toString(36).slice(-6)}${++n}` })).json()
    .result;
  // The node installs the folder right after creation.
  await until(
    async () => (await send('GET', `/v1/server/${server.serverId}/files/list?path=/`, cookie)).json().status,
    (s) => s === 'SUCCESS',
  );
  return { cookie, id: server.serverId as string };
}

function multipart(name: string, content: Buffer) {
  const boundary = '----spawnpoint' + Math.random().toString(16).slice(2);
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('files', () => {
  it('uploads (streamed multipart), lists, edits text and downloads', async () => {
    const { cookie, id } = await ownerWithServer();
    const data = Buffer.from('hello world\n'.repeat(1000));
    const upload = multipart('notes.txt', data);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/notes.txt`,
      headers: { cookie, ...upload.headers },
      payload: upload.payload,
      remoteAddress: uniqueIp(),
    });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    const list = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result;
    expect(list.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['notes.txt', 'server.properties']));

    const content = (await send('GET', `/v1/server/${id}/files/content?path=/notes.txt`, cookie)).json().result.content;
    expect(content).toBe(data.toString());
    expect((await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/notes.txt', content: 'edited' })).json().status).toBe(
      'SUCCESS',
    );
    const download = await send('GET', `/v1/server/${id}/files/download?path=/notes.txt`, cookie);
    expect(download.body).toBe('edited');
    expect(download.headers['content-disposition']).toBe('attachment; filename="notes.txt"');
  });

  it('refuses to open binary files in the editor and explains', async () => {
    const { cookie, id } = await ownerWithServer();
    const upload = multipart('level.dat', Buffer.from([1, 2, 0, 3]));
    await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/level.dat`,
      headers: { cookie, ...upload.headers },
      payload: upload.payload,
      remoteAddress: uniqueIp(),
    });
    const res = await send('GET', `/v1/server/${id}/files/content?path=/level.dat`, cookie);
    expect(res.json()).toEqual({ status: 'INVALID_INPUT', message: 'This is not a text file. Download it instead.' });
  });

  it('maps sandbox refusals to the catalogue and never a 5xx', async () => {
    const { cookie, id } = await ownerWithServer();
    expect((await send('GET', `/v1/server/${id}/files/list?path=/../..`, cookie)).json().status).toBe('INVALID_INPUT');
    expect((await send('GET', `/v1/server/${id}/files/list?path=/nothing-here`, cookie)).json().status).toBe('NOT_FOUND');
    expect((await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/plugins' })).json().status).toBe('SUCCESS');
    expect((await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/plugins' })).json().status).toBe('INVALID_STATE');
    expect((await send('POST', `/v1/server/${id}/files/rename`, cookie, { from: '/plugins', to: '/mods' })).json().status).toBe('SUCCESS');
    expect((await send('POST', `/v1/server/${id}/files/delete`, cookie, { paths: ['/mods'] })).json().status).toBe('SUCCESS');
    expect((await send('GET', `/v1/server/${id}/files/search?q=properties`, cookie)).json().result).toEqual([
      expect.objectContaining({ path: '/server.properties' }),
    ]);
  });

  it('changes permission bits, shows them in the listing, and refuses modes out of range', async () => {
    const { cookie, id } = await ownerWithServer();
    const modeOf = async (name: string) =>
      ((await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result as { name: string; mode: number }[]).find(
        (e) => e.name === name,
      )?.mode;
    expect((await send('POST', `/v1/server/${id}/files/chmod`, cookie, { path: '/server.properties', mode: 0o600 })).json().status).toBe(
      'SUCCESS',
    );
    expect(await modeOf('server.properties')).toBe(0o600);
    expect((await send('POST', `/v1/server/${id}/files/chmod`, cookie, { path: '/server.properties', mode: 0o1777 })).json().status).toBe(
      'INVALID_INPUT',
    );
    expect((await send('POST', `/v1/server/${id}/files/chmod`, cookie, { path: '/../etc/passwd', mode: 0o777 })).json().status).toBe(
      'INVALID_INPUT',
    );
    expect(await modeOf('server.properties')).toBe(0o600);
  });

  it("answers NOT_FOUND for another user's server", async () => {
    const owner = await ownerWithServer();
    const stranger = await ownerWithServer();
    for (const url of [
      `/v1/server/${owner.id}/files/list?path=/`,
      `/v1/server/${owner.id}/files/download?path=/server.properties`,
      `/v1/server/${owner.id}/properties`,
      `/v1/server/${owner.id}/backups`,
    ]) {
      expect((await send('GET', url, stranger.cookie)).json().status, url).toBe('NOT_FOUND');
    }
  });
});

describe('server.properties', () => {
  it('reads typed values and writes them back with validation', async () => {
    const { cookie, id } = await ownerWithServer();
    const current = (await send('GET', `/v1/server/${id}/properties`, cookie)).json().result;
    expect(current).toMatchObject({ 'max-players': 10, gamemode: 'survival', difficulty: 'easy', 'level-type': 'default' });
    const bad = await send('PUT', `/v1/server/${id}/properties`, cookie, { ...current, 'max-players': 50, gamemode: 'god' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().fields).sort()).toEqual(['gamemode', 'max-players']);
    const res = await send('PUT', `/v1/server/${id}/properties`, cookie, { ...current, motd: 'Welcome home', difficulty: 'hard' });
    expect(res.json().result).toMatchObject({ motd: 'Welcome home', difficulty: 'hard' });
  });
});

describe('backups', () => {
  it('creates with progress, lists with size and checksum, restores, locks, rotates and deletes', async () => {
    const { cookie, id } = await ownerWithServer();
    const write = (content: string) => send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/world-note.txt', content });
    await write('version one');

    const first = await send('POST', `/v1/server/${id}/backups`, cookie, {});
    expect(first.json().status).toBe('SUCCESS');
    const list = await until(
      async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result,
      (r) => r.backups.length === 1 && !r.running,
    );
    expect(list.backups[0]).toMatchObject({ locked: false });
    expect(list.backups[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(list.backups[0].size).toBeGreaterThan(0);

    await write('version two');
    const restore = await send('POST', `/v1/server/${id}/backups/${list.backups[0].backupId}/restore`, cookie, {});
    expect(restore.json().status).toBe('SUCCESS');
    expect((await send('GET', `/v1/server/${id}/files/content?path=/world-note.txt`, cookie)).json().result.content).toBe('version one');

    // Lock the first, fill to the limit of 3, and see the oldest unlocked rotate out.
    expect(
      (await send('POST', `/v1/server/${id}/backups/${list.backups[0].backupId}/lock`, cookie, { locked: true })).json().result.locked,
    ).toBe(true);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await send('POST', `/v1/server/${id}/backups`, cookie, {});
      if (res.json().status === 'RATE_LIMIT') break;
      made.push(res.json().result.backupId);
      await until(
        async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result.running,
        (r) => r === false,
      );
    }
    const after = (await send('GET', `/v1/server/${id}/backups`, cookie))
      .json()
      .result.backups.map((b: { backupId: string }) => b.backupId);
    expect(after).toContain(list.backups[0].backupId);
    expect(after.length).toBeLessThanOrEqual(3);

    const del = await send('DELETE', `/v1/server/${id}/backups/${list.backups[0].backupId}`, cookie);
    expect(del.json().status).toBe('SUCCESS');
    expect((await send('GET', `/v1/server/${id}/backups/${list.backups[0].backupId}/download`, cookie)).json().status).toBe('NOT_FOUND');
  });

  it('refuses a second backup while one runs, and never lists a pending one', async () => {
    const { cookie, id } = await ownerWithServer();
    await t.ctx.database.db.insert(backups).values({ id: 'ghost-pending', serverId: id, status: 'pending' });
    const [a, b] = await Promise.all([
      send('POST', `/v1/server/${id}/backups`, cookie, {}),
      send('POST', `/v1/server/${id}/backups`, cookie, {}),
    ]);
    expect([a.json().status, b.json().status].sort()).toEqual(['INVALID_STATE', 'SUCCESS']);
    const list = await until(
      async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result,
      (r) => !r.running,
    );
    expect(list.backups.map((x: { backupId: string }) => x.backupId)).not.toContain('ghost-pending');
  });
});
