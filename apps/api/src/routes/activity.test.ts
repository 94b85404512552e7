import type { AddressInfo } from 'node:net';
import {
  errorMessage,
  rolePermissions,
  SERVER_ACTIVITY_RETENTION_DAYS,
  type ServerActivityEntry,
  type ServerActivityPage,
} from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../../test-support/until.ts';
import { serverActivity, serverMembers, users } from '../db/schema.ts';
import { pruneActivity } from '../servers/activity.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, cookieFrom, ownerWithServer, requester, uniqueEmail, type Send } from '../test/build-test-app.ts';

/**
 * The activity log of a server against a real agent: what a sequence of changes writes,
 * who may read it, paging, and that file contents never reach it.
 */
let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;
let base: string;
let send: Send;
const sockets: Socket[] = [];

beforeAll(async () => {
  agent = await prepareAgent();
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]) });
  send = requester(t.app);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  agent.start(base);
  await until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
});
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await t.cleanup();
  await agent.stop();
});

async function account(): Promise<{ userId: string; emailAddress: string; cookie: string }> {
  const emailAddress = uniqueEmail('activity');
  const res = await send('POST', '/v1/auth/register', undefined, { emailAddress, password: 'long enough password' });
  const userId = res.json().result.userId as string;
  await t.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  t.ctx.sessions.forgetUser(userId);
  return { userId, emailAddress, cookie: cookieFrom(res.headers['set-cookie']) };
}

const activity = (id: string, cookie: string, query = '') => send('GET', `/v1/server/${id}/activity${query}`, cookie);
const page = async (id: string, cookie: string, query = ''): Promise<ServerActivityPage> => {
  const res = await activity(id, cookie, query);
  expect(res.json().status).toBe('SUCCESS');
  return res.json().result as ServerActivityPage;
};
const actions = (entries: ServerActivityEntry[]) => entries.map((e) => [e.action, e.target]);

/** A live socket of `cookie`'s session, authenticated. */
async function signedInSocket(cookie: string): Promise<Socket> {
  const token = (await send('GET', '/v1/user/websocket', cookie)).json().result.token as string;
  const socket = connect(base, { transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  const authed = new Promise<void>((resolve) => socket.once('auth:success', () => resolve()));
  socket.emit('auth', { token });
  await authed;
  return socket;
}

async function socketCommand(cookie: string, serverId: string, command: string): Promise<void> {
  (await signedInSocket(cookie)).emit('server:command', { serverId, command });
}

describe('the activity log of a server', () => {
  let owner: { cookie: string; id: string; emailAddress: string; userId: string };
  const SECRET_CONTENT = 'rcon.password=do-not-log-this-3141';

  beforeAll(async () => {
    const made = await ownerWithServer(t, 'activity');
    const me = (await send('GET', '/v1/user/me', made.cookie)).json().result as { userId: string; emailAddress: string };
    owner = { ...made, ...me };
  });

  it('lists start, commands (HTTP and socket), a file save, a backup and a member change, newest first, with actor, target and address', async () => {
    const { id, cookie } = owner;
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      async () => (await send('GET', `/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'online',
      60_000,
    );
    expect((await send('POST', `/v1/server/${id}/command`, cookie, { command: 'say hello' })).json().status).toBe('SUCCESS');
    await socketCommand(cookie, id, 'say from the socket');
    await until(
      async () => (await page(id, cookie)).entries.length,
      (n) => n === 3,
    );
    // "New file" (may not replace one), then a save in the editor.
    const create = await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/notes.txt', content: '', overwrite: false });
    expect(create.json().status).toBe('SUCCESS');
    const save = await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/notes.txt', content: SECRET_CONTENT });
    expect(save.json().status).toBe('SUCCESS');
    const backup = await send('POST', `/v1/server/${id}/backups`, cookie, {});
    expect(backup.json().status).toBe('SUCCESS');
    const friend = await account();
    await t.ctx.database.db.insert(serverMembers).values({ serverId: id, userId: friend.userId, role: 'viewer' });
    expect((await send('PUT', `/v1/server/${id}/members/${friend.userId}`, cookie, { role: 'moderator' })).json().status).toBe('SUCCESS');

    const { entries, next } = await page(id, cookie);
    expect(next).toBeNull();
    expect(actions(entries)).toEqual([
      ['member.role', `${friend.emailAddress}: viewer → moderator`],
      ['backup.create', expect.stringMatching(/^backup of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/)],
      ['file.save', '/notes.txt'],
      ['file.create', '/notes.txt'],
      ['console.command', 'say from the socket'],
      ['console.command', 'say hello'],
      ['server.start', expect.any(String)],
    ]);
    for (const entry of entries) {
      expect(entry.actor).toEqual({ userId: owner.userId, emailAddress: owner.emailAddress });
      expect(entry.ip).toMatch(/\d/);
      expect(Number.isNaN(Date.parse(entry.createdAt))).toBe(false);
    }
    // The friend (now a moderator, without members.manage) reads the same log without the owner's address of
    // origin or the friend's own address in full: those are for whoever manages members.
    const seen = await page(id, friend.cookie);
    expect(seen.entries.map((e) => e.ip)).toEqual(entries.map(() => null));
    const masked = `${friend.emailAddress.slice(0, 1)}${'*'.repeat(friend.emailAddress.split('@')[0]!.length - 1)}@example.com`;
    expect(seen.entries[0]?.target).toBe(`${masked}: viewer → moderator`);
    expect(JSON.stringify(seen)).not.toContain(friend.emailAddress);
    // What the friend does shows the friend their own address.
    expect((await send('POST', `/v1/server/${id}/command`, friend.cookie, { command: 'say hi from a friend' })).json().status).toBe(
      'SUCCESS',
    );
    const own = (await page(id, friend.cookie)).entries[0];
    expect(own).toMatchObject({ action: 'console.command', actor: { userId: friend.userId } });
    expect(own?.ip).toMatch(/\d/);
    // File contents never reach the log, neither the answer nor the table.
    expect(JSON.stringify(entries)).not.toContain('do-not-log-this');
    const rows = await t.ctx.database.db.execute('select * from server_activity');
    expect(JSON.stringify(rows)).not.toContain('do-not-log-this');
  });

  it('refuses a command with a line break or a control character, over HTTP and the socket, so none runs unlogged', async () => {
    const { id, cookie } = owner;
    const before = (await page(id, cookie)).entries.length;
    for (const command of ['say one\nop Mallory', 'say one\rop Mallory', 'say \u0000nul', 'stop\u0000']) {
      const res = await send('POST', `/v1/server/${id}/command`, cookie, { command });
      expect([res.statusCode, res.json().status, res.json().fields?.command]).toEqual([
        400,
        'INVALID_INPUT',
        'A command is one line without control characters.',
      ]);
    }
    const socket = await signedInSocket(cookie);
    const refused = new Promise<unknown>((resolve) => socket.once('server:error', resolve));
    socket.emit('server:command', { serverId: id, command: 'say one\nop Mallory' });
    expect(await refused).toEqual({ serverId: id, status: 'INVALID_INPUT', message: 'A command is one line without control characters.' });
    // A NUL in the id is no server of anyone's: nothing comes back, and nothing broke.
    socket.emit('server:subscribe', { serverId: `${id}\u0000` });
    expect((await page(id, cookie)).entries.length).toBe(before);
    const ops = (await send('GET', `/v1/server/${id}/files/content?path=/ops.json`, cookie)).json();
    expect(JSON.stringify(ops)).not.toContain('Mallory');
  });

  it('pages with ?before=<next>&limit= without gaps or repeats', async () => {
    const { id, cookie } = owner;
    const all = (await page(id, cookie)).entries;
    expect(all.length).toBeGreaterThanOrEqual(6);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&before=${cursor}` : ''}`;
      const result = await page(id, cookie, query);
      expect(result.entries.length).toBeLessThanOrEqual(2);
      seen.push(...result.entries.map((e) => e.id));
      cursor = result.next;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
    expect((await activity(id, cookie, '?before=not-a-cursor')).json().status).toBe('INVALID_INPUT');
    expect((await activity(id, cookie, '?limit=1000')).json().status).toBe('INVALID_INPUT');
  });

  it('is NOT_FOUND on a server the caller has nothing to do with, and NO_PERMISSION for a role without activity.read', async () => {
    const stranger = await account();
    const res = await activity(owner.id, stranger.cookie);
    expect([res.statusCode, res.json().status]).toEqual([404, 'NOT_FOUND']);

    const viewer = await account();
    await t.ctx.database.db.insert(serverMembers).values({ serverId: owner.id, userId: viewer.userId, role: 'viewer' });
    expect((await activity(owner.id, viewer.cookie)).json().status).toBe('SUCCESS');
    // A role without the key (none of today's roles lacks it): the one permission check refuses it.
    const viewerKeys = rolePermissions.viewer;
    rolePermissions.viewer = viewerKeys.filter((key) => key !== 'activity.read');
    try {
      const refused = await activity(owner.id, viewer.cookie);
      expect([refused.statusCode, refused.json()]).toEqual([403, { status: 'NO_PERMISSION', message: errorMessage('NO_PERMISSION') }]);
    } finally {
      rolePermissions.viewer = viewerKeys;
    }
  });

  it(`keeps entries for ${SERVER_ACTIVITY_RETENTION_DAYS} days: older ones are pruned, newer ones stay`, async () => {
    const { id, cookie, userId } = await (async () => {
      const made = await ownerWithServer(t, 'activityold');
      const me = (await send('GET', '/v1/user/me', made.cookie)).json().result as { userId: string };
      return { ...made, userId: me.userId };
    })();
    const { db } = t.ctx.database;
    const day = 86_400_000;
    const entry = (daysAgo: number, target: string) => ({
      serverId: id,
      actorId: userId,
      actorEmail: 'x@example.com',
      action: 'server.start' as const,
      target,
      ip: null,
      createdAt: new Date(Date.now() - daysAgo * day),
    });
    await db
      .insert(serverActivity)
      .values([entry(SERVER_ACTIVITY_RETENTION_DAYS + 1, 'too old'), entry(SERVER_ACTIVITY_RETENTION_DAYS - 1, 'kept')]);
    expect(await pruneActivity(db)).toBeGreaterThanOrEqual(1);
    const targets = ((await activity(id, cookie)).json().result as ServerActivityPage).entries.map((e) => e.target);
    expect(targets).toContain('kept');
    expect(targets).not.toContain('too old');
  });
});
