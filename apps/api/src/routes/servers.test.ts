import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import {
  CONSOLE_SUBSCRIBERS_PER_SERVER_MAX,
  downgradeMessage,
  eulaMessages,
  FREE_SERVER_LIMIT,
  isRestrictedName,
  ownedServerLimitMessage,
  SOCKETS_PER_SESSION_MAX,
} from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import mc from 'minecraft-protocol';
import sharp from 'sharp';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { servers as serverTable, users } from '../db/schema.ts';
import { buildFakeJar } from '../../../agent/test-support/fake-jar.ts';
import { FREE_MAX_PLAYERS } from '../servers/server-creator.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, cookieFrom, mailsTo, uniqueEmail, uniqueIp, uniqueServerName } from '../test/build-test-app.ts';
import { until } from '../../../../test-support/until.ts';

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;
let t: TestApp;
let agent: AgentProcess;
let base: string;
const sockets: Socket[] = [];
const otherNode = {
  id: 'other-node',
  url: 'http://127.0.0.1:9',
  token: 'o'.repeat(64),
  publicHost: 'localhost',
  capacity: 50,
  portRange: '45000-45010',
};

beforeAll(async () => {
  agent = await prepareAgent();
  // A second node that connects only in the node-isolation test (so nothing is scheduled on it).
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig, otherNode]), PLAY_DOMAIN: 'play.example.test' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  agent.start(base);
  await until(
    async () => (await get('/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t.cleanup();
  await agent.stop();
});

function get(url: string, cookie?: string) {
  return t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {}, remoteAddress: uniqueIp() });
}
function post(url: string, cookie: string, payload: unknown = {}) {
  return t.app.inject({ method: 'POST', url, headers: { cookie }, payload: payload as Record<string, unknown>, remoteAddress: uniqueIp() });
}
function put(url: string, cookie: string, payload: unknown = {}) {
  return t.app.inject({ method: 'PUT', url, headers: { cookie }, payload: payload as Record<string, unknown>, remoteAddress: uniqueIp() });
}

async function account({ verified = true } = {}) {
  const email = uniqueEmail('srv');
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { emailAddress: email, password: 'long enough password' },
    remoteAddress: uniqueIp(),
  });
  const userId = res.json().result.userId as string;
  if (verified) {
    await t.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
    t.ctx.sessions.forgetUser(userId);
  }
  return { email, userId, cookie: cookieFrom(res.headers['set-cookie']) };
}

const uniqueName = () => uniqueServerName('t');

async function create(cookie: string, body: Record<string, unknown> = {}) {
  return post('/v1/server/create', cookie, { serverName: uniqueName(), ...body });
}

describe('creating a server', () => {
  it('uses the built-in runtime and its newest version by default, and places it on a node', async () => {
    const { cookie } = await account();
    const name = uniqueName();
    const res = await post('/v1/server/create', cookie, { serverName: `  ${name.toUpperCase()} ` });
    expect(res.statusCode).toBe(200);
    const server = res.json().result;
    expect(server).toMatchObject({
      name,
      software: 'flying-squid',
      version: '1.21.4',
      state: 'offline',
      host: 'localhost',
      joinAddress: `${name}.play.example.test`,
      players: { online: 0, max: 10 },
    });
    const [low, high] = agent.nodeConfig.portRange.split('-').map(Number) as [number, number];
    expect(server.port).toBeGreaterThanOrEqual(low);
    expect(server.port).toBeLessThanOrEqual(high);
    expect(new Date(server.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses names outside the rules with the name message', async () => {
    const { cookie } = await account();
    for (const serverName of ['ab', 'a'.repeat(17), 'has space', 'under_score', '-dash', 'dash-', 'ünïcode']) {
      const res = await post('/v1/server/create', cookie, { serverName });
      expect(res.statusCode, serverName).toBe(400);
      expect(res.json().status).toBe('INVALID_INPUT');
      expect(res.json().fields.serverName).toMatch(/^The server name must be 3 to 16 characters/);
    }
  });

  it('refuses restricted names with CONTENT_RESTRICTED', async () => {
    const { cookie } = await account();
    for (const serverName of ['admin-world', 'www', 'f4ck-sh1t', 'spawnpoint']) {
      const res = await post('/v1/server/create', cookie, { serverName });
      expect(res.json().status, serverName).toBe('CONTENT_RESTRICTED');
    }
  });

  it('refuses a name in use by anyone with SERVER_NAME_ALREADY_IN_USE', async () => {
    const first = await account();
    const second = await account();
    const name = uniqueName();
    expect((await post('/v1/server/create', first.cookie, { serverName: name })).statusCode).toBe(200);
    const res = await post('/v1/server/create', second.cookie, { serverName: name });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      status: 'SERVER_NAME_ALREADY_IN_USE',
      message: 'This server name is already in use. Please choose a unique server name.',
    });
  });

  it('asks an unverified account to verify and sends the mail', async () => {
    const { cookie, email } = await account({ verified: false });
    await t.drain();
    const before = mailsTo(t.dataDir, email).length;
    const res = await create(cookie);
    expect(res.statusCode).toBe(403);
    expect(res.json().status).toBe('EMAIL_ADDRESS_REQUIRED');
    await t.drain();
    expect(mailsTo(t.dataDir, email).length).toBe(before + 1);
  });

  it('refuses an unknown version of a software', async () => {
    const { cookie } = await account();
    const res = await create(cookie, { software: 'flying-squid', version: '1.2.3' });
    expect(res.json()).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { version: 'Built-in (flying-squid) does not offer version 1.2.3.' },
    });
  });

  it('offers Java software in the versions the node has the Java for, and refuses the others at create', async () => {
    const { cookie } = await account();
    // What the real agent reported in its hello: the Java runtimes of this machine (17 at least).
    const reported = t.ctx.game.nodes.javaMajorsOf('test-node') ?? [];
    expect(reported).toContain(17);
    const paper = (
      (await get('/v1/server/software', cookie)).json().result as { id: string; versions: string[]; available: boolean }[]
    ).find((s) => s.id === 'paper');
    expect(paper?.available).toBe(true);
    // The releases the node read from the vendor (the local stand-in lists 1.21.4 and 1.20.4, a snapshot and a
    // pre-release), newest first, the runnable ones only.
    expect(paper?.versions).toEqual(reported.some((j) => j >= 21) ? ['1.21.4', '1.20.4'] : ['1.20.4']);
    // A version the vendor does not list is refused, whatever the client sends.
    const unlisted = await create(cookie, { software: 'paper', version: '1.19.2' });
    expect([unlisted.statusCode, unlisted.json().fields?.version]).toEqual([400, 'Paper does not offer version 1.19.2.']);
    // Snapshots and pre-releases apart, never among the releases; a create names one to get it.
    const vanilla = (
      (await get('/v1/server/software', cookie)).json().result as { id: string; versions: string[]; previews: string[] }[]
    ).find((s) => s.id === 'vanilla');
    expect(vanilla?.previews).toEqual(['99w01a']);
    expect(vanilla?.versions).not.toContain('99w01a');
    const snapshot = await create(cookie, { software: 'vanilla', version: '99w01a' });
    expect(snapshot.json()).toMatchObject({ status: 'SUCCESS' });
    // A node that has only Java 17 but downloads the others: 1.21.4 is offered, and said to download its Java.
    const onlySeventeen = vi.spyOn(t.ctx.game.nodes, 'javaInstalledOf').mockReturnValue([17]);
    try {
      const offer = (
        (await get('/v1/server/software', cookie)).json().result as { id: string; versions: string[]; javaDownloads: string[] }[]
      ).find((s) => s.id === 'paper');
      // Paper's pre-release of 1.21.5 (a preview) needs Java 21 too.
      expect(offer?.javaDownloads).toEqual(['1.21.4', '1.21.5-pre1']);
    } finally {
      onlySeventeen.mockRestore();
    }
    // A node with only Java 17 (this machine may have a newer one too): 1.21.4 needs 21, so it is refused.
    const spy = vi.spyOn(t.ctx.game.nodes, 'javaMajorsOf').mockReturnValue([17]);
    try {
      const res = await create(cookie, { software: 'paper', version: '1.21.4' });
      expect([res.statusCode, res.json().fields?.version]).toEqual([
        400,
        'No node can run this version yet (it needs Java 21). Choose another.',
      ]);
    } finally {
      spy.mockRestore();
    }
  });

  it(`keeps to the limit of ${FREE_SERVER_LIMIT} servers under 50 concurrent creates`, async () => {
    const { cookie } = await account();
    const results = await Promise.all(Array.from({ length: 50 }, () => create(cookie)));
    const statuses = results.map((r) => r.json().status);
    expect(
      statuses.filter((s) => s === 'SUCCESS'),
      JSON.stringify(results.map((r) => r.json()).filter((b) => b.status !== 'SERVER_LIMIT_REACHED')),
    ).toHaveLength(FREE_SERVER_LIMIT);
    expect(statuses.filter((s) => s === 'SERVER_LIMIT_REACHED')).toHaveLength(50 - FREE_SERVER_LIMIT);
    // What to do about it: hibernating (the catalogue's text) frees a running slot, not an owned one.
    expect(new Set(results.filter((r) => r.statusCode === 403).map((r) => r.json().message))).toEqual(
      new Set([ownedServerLimitMessage(FREE_SERVER_LIMIT)]),
    );
    expect((await get('/v1/user/servers', cookie)).json().result).toHaveLength(FREE_SERVER_LIMIT);
  });

  it('needs a session', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/server/create',
      payload: { serverName: 'whatever' },
      remoteAddress: uniqueIp(),
    });
    expect(res.json().status).toBe('NOT_AUTHENTICATED');
  });
});

describe('name availability', () => {
  it('answers while the user types', async () => {
    const { cookie } = await account();
    const name = uniqueName();
    expect((await get(`/v1/server/name-available?name=${name}`, cookie)).json().result).toEqual({ name, available: true });
    await post('/v1/server/create', cookie, { serverName: name });
    expect((await get(`/v1/server/name-available?name=${name}`, cookie)).json().result).toEqual({
      name,
      available: false,
      reason: 'This name is already in use.',
    });
    expect((await get('/v1/server/name-available?name=ab', cookie)).json().result.available).toBe(false);
    // Too long to ever be valid, or missing: the form rules' words, never the schema library's.
    const long = await get(`/v1/server/name-available?name=${'a'.repeat(65)}`, cookie);
    expect(long.statusCode).toBe(400);
    expect(long.json().fields).toEqual({ name: 'The server name field may not be greater than 16 characters' });
    expect((await get('/v1/server/name-available', cookie)).json().fields).toEqual({ name: 'The server name field is required' });
    expect((await get('/v1/server/name-available?name=admin', cookie)).json().result.reason).toBe(
      'This name is not allowed. Please choose another.',
    );
  });
});

describe('reading servers', () => {
  it("answers NOT_FOUND for another user's server and for unknown ids", async () => {
    const owner = await account();
    const stranger = await account();
    const id = (await create(owner.cookie)).json().result.serverId;
    for (const url of [`/v1/server/${id}`, '/v1/server/doesnotexist']) {
      const res = await get(url, stranger.cookie);
      expect(res.statusCode).toBe(404);
      expect(res.json().status).toBe('NOT_FOUND');
    }
    for (const action of ['start', 'stop', 'kill', 'command']) {
      expect((await post(`/v1/server/${id}/${action}`, stranger.cookie, { command: 'op stranger' })).json().status).toBe('NOT_FOUND');
    }
    expect(
      (
        await t.app.inject({ method: 'DELETE', url: `/v1/server/${id}`, headers: { cookie: stranger.cookie }, remoteAddress: uniqueIp() })
      ).json().status,
    ).toBe('NOT_FOUND');
    expect((await get('/v1/user/servers', stranger.cookie)).json().result).toEqual([]);
  });

  it('refuses malformed ids without a 5xx', async () => {
    const { cookie } = await account();
    for (const id of ['..%2F..', '%00', 'a'.repeat(80)]) {
      const res = await get(`/v1/server/${id}`, cookie);
      expect(res.statusCode).toBeLessThan(500);
    }
  });
});

describe('power, console and deletion (real agent, real flying-squid)', () => {
  it('starts, refuses actions the state does not allow, runs commands, streams the console and state, stops', async () => {
    const { cookie } = await account();
    const server = (await create(cookie)).json().result;
    const id = server.serverId as string;

    // A signed-in browser socket sees state changes and, once subscribed, the console.
    const token = (await get('/v1/user/websocket', cookie)).json().result.token;
    const socket = connect(base, { transports: ['websocket'], reconnection: false });
    sockets.push(socket);
    const states: string[] = [];
    const lines: string[] = [];
    socket.on('server:state', (e: { serverId: string; state: string }) => e.serverId === id && states.push(e.state));
    socket.on('server:console', (e: { serverId: string; lines: string[] }) => e.serverId === id && lines.push(...e.lines));
    await new Promise<void>((resolve) => {
      socket.once('auth:success', () => resolve());
      socket.emit('auth', { token });
    });
    socket.emit('server:subscribe', { serverId: id });

    expect((await post(`/v1/server/${id}/stop`, cookie)).json().status).toBe('INVALID_STATE');
    expect((await post(`/v1/server/${id}/restart`, cookie)).statusCode).toBe(409);
    expect((await post(`/v1/server/${id}/command`, cookie, { command: 'list' })).json().status).toBe('INVALID_STATE');
    expect((await post(`/v1/server/${id}/explode`, cookie)).json().status).toBe('NOT_FOUND');

    expect((await post(`/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      async () => (await get(`/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'online',
    );
    // The socket is a separate channel from the HTTP poll; its frames may still be in flight.
    await until(
      () => states,
      (s) => s.includes('starting') && s.includes('online'),
    );
    const startAgain = await post(`/v1/server/${id}/start`, cookie);
    expect(startAgain.statusCode).toBe(409);
    expect(startAgain.json()).toEqual({ status: 'INVALID_STATE', message: 'Cannot start the server while it is online.' });

    expect((await post(`/v1/server/${id}/command`, cookie, { command: 'say over http' })).json().status).toBe('SUCCESS');
    socket.emit('server:command', { serverId: id, command: 'say over the socket' });
    await until(
      () => lines.join('\n'),
      (c) => c.includes('[Server] over http') && c.includes('[Server] over the socket'),
    );
    expect((await post(`/v1/server/${id}/command`, cookie, { command: '' })).json().status).toBe('INVALID_INPUT');

    const stats = await until(
      async () => (await get(`/v1/server/${id}`, cookie)).json().result.stats,
      (s) => s !== null,
    );
    expect(stats.memory).toBeGreaterThan(10_000_000);
    expect(stats.players).toEqual({ online: 0, max: 10, list: [] });

    expect((await post(`/v1/server/${id}/stop`, cookie)).json().status).toBe('SUCCESS');
    await until(
      async () => (await get('/v1/user/servers', cookie)).json().result[0]?.state,
      (s) => s === 'offline',
    );
    await until(
      () => states,
      (s) => s.includes('stopping') && s.includes('offline'),
    );
    await until(
      () => lines.join('\n'),
      (c) => c.includes('The server stopped.'),
    );
    // Kill is allowed in any state.
    expect((await post(`/v1/server/${id}/kill`, cookie)).json().status).toBe('SUCCESS');
  });

  it("does not let one user subscribe to another user's console", async () => {
    const owner = await account();
    const stranger = await account();
    const id = (await create(owner.cookie)).json().result.serverId;
    const token = (await get('/v1/user/websocket', stranger.cookie)).json().result.token;
    const socket = connect(base, { transports: ['websocket'], reconnection: false });
    sockets.push(socket);
    await new Promise<void>((resolve) => {
      socket.once('auth:success', () => resolve());
      socket.emit('auth', { token });
    });
    const refused = new Promise<{ status: string }>((resolve) => socket.once('server:error', resolve));
    socket.emit('server:subscribe', { serverId: id });
    expect((await refused).status).toBe('NOT_FOUND');
  });

  it(`serves one console to at most ${CONSOLE_SUBSCRIBERS_PER_SERVER_MAX} sockets; the next gets RATE_LIMIT until a place is freed`, async () => {
    const { cookie, email } = await account();
    const id = (await create(cookie)).json().result.serverId as string;
    // One session may hold only SOCKETS_PER_SESSION_MAX sockets, so the owner signs in a few more times.
    const sessions = [cookie];
    const sessionFor = async (n: number) => {
      const index = Math.floor(n / SOCKETS_PER_SESSION_MAX);
      while (sessions.length <= index) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/auth/login',
          payload: { emailAddress: email, password: 'long enough password' },
          remoteAddress: uniqueIp(),
        });
        sessions.push(cookieFrom(res.headers['set-cookie']));
      }
      return sessions[index] as string;
    };

    interface Watcher {
      socket: Socket;
      lines: string[];
      errors: string[];
      /** Answers 'subscribed' (the hub sends the state to a new subscriber) or the server:error status. */
      subscribe(): Promise<string>;
    }
    let opened = 0;
    const watcher = async (): Promise<Watcher> => {
      const cookieOfSession = await sessionFor(opened++);
      const token = (await get('/v1/user/websocket', cookieOfSession)).json().result.token;
      const socket = connect(base, { transports: ['websocket'], reconnection: false });
      sockets.push(socket);
      await new Promise<void>((resolve) => {
        socket.once('auth:success', () => resolve());
        socket.emit('auth', { token });
      });
      const lines: string[] = [];
      const errors: string[] = [];
      socket.on('server:console', (e: { serverId: string; lines: string[] }) => e.serverId === id && lines.push(...e.lines));
      const subscribe = () =>
        new Promise<string>((resolve) => {
          const onState = (e: { serverId: string }) => e.serverId === id && done('subscribed');
          const onError = (e: { serverId: string; status: string; message: string }) => {
            if (e.serverId !== id) return;
            errors.push(e.message);
            done(e.status);
          };
          const done = (outcome: string) => {
            socket.off('server:state', onState);
            socket.off('server:error', onError);
            resolve(outcome);
          };
          socket.on('server:state', onState);
          socket.on('server:error', onError);
          socket.emit('server:subscribe', { serverId: id });
        });
      return { socket, lines, errors, subscribe };
    };

    // Subscribed while the server is offline, so no state broadcast can pass for a subscription answer.
    const watchers = await Promise.all(Array.from({ length: CONSOLE_SUBSCRIBERS_PER_SERVER_MAX }, () => watcher()));
    expect(await Promise.all(watchers.map((w) => w.subscribe()))).toEqual(Array(CONSOLE_SUBSCRIBERS_PER_SERVER_MAX).fill('subscribed'));
    const late = await watcher();
    expect(await late.subscribe()).toBe('RATE_LIMIT');
    expect(late.errors).toEqual([
      `This server's console is open in too many places (at most ${CONSOLE_SUBSCRIBERS_PER_SERVER_MAX}). Close it in another tab or window and try again.`,
    ]);
    // A socket that subscribes again still takes one place.
    expect(await (watchers[0] as Watcher).subscribe()).toBe('subscribed');
    expect(await late.subscribe()).toBe('RATE_LIMIT');

    // Every subscribed socket still gets the console.
    expect((await post(`/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      async () => (await get(`/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'online',
    );
    expect((await post(`/v1/server/${id}/command`, cookie, { command: 'say to every watcher' })).json().status).toBe('SUCCESS');
    await until(
      () => watchers.filter((w) => w.lines.some((l) => l.includes('[Server] to every watcher'))).length,
      (n) => n === CONSOLE_SUBSCRIBERS_PER_SERVER_MAX,
    );
    expect(late.lines).toEqual([]);

    // Places come back on unsubscribe and on disconnect (the API sees either a moment after the client).
    (watchers[0] as Watcher).socket.emit('server:unsubscribe', { serverId: id });
    await until(
      () => late.subscribe(),
      (outcome) => outcome === 'subscribed',
    );
    (watchers[1] as Watcher).socket.disconnect();
    const next = await watcher();
    await until(
      () => next.subscribe(),
      (outcome) => outcome === 'subscribed',
    );
    expect(await (await watcher()).subscribe()).toBe('RATE_LIMIT');

    // Once every socket has gone, the hub holds no subscriber of this server: nothing leaks.
    for (const w of [...watchers, late, next]) w.socket.disconnect();
    await until(
      () => t.ctx.game.hub.subscriberCount(id),
      (n) => n === 0,
    );
    expect((await post(`/v1/server/${id}/kill`, cookie)).json().status).toBe('SUCCESS');
  });

  it('changes the Minecraft version after a backup, asks before a downgrade, and runs the new one at the next start', async () => {
    const { cookie } = await account();
    const server = (await create(cookie)).json().result;
    const id = server.serverId as string;
    expect(server.version).toBe('1.21.4');
    const change = (body: Record<string, unknown>) => put(`/v1/server/${id}/version`, cookie, body);

    expect((await change({ version: '1.21.4' })).json().fields).toEqual({ version: 'The server already runs Minecraft 1.21.4.' });
    expect((await change({ version: '1.13' })).json().fields).toEqual({ version: 'Built-in (flying-squid) does not offer version 1.13.' });
    // Older: worlds saved by the newer version may not load, so it is asked for in so many words.
    const asked = await change({ version: '1.20.4' });
    expect([asked.statusCode, asked.json().message]).toEqual([409, downgradeMessage('1.21.4', '1.20.4')]);
    expect((await get(`/v1/server/${id}/backups`, cookie)).json().result.backups).toHaveLength(0);

    const changed = await change({ version: '1.20.4', confirmDowngrade: true });
    expect(changed.json().status, changed.json().message).toBe('SUCCESS');
    expect(changed.json().result.version).toBe('1.20.4');
    // The backup came first, and the log says what changed.
    expect((await get(`/v1/server/${id}/backups`, cookie)).json().result.backups).toHaveLength(1);
    const log = (await get(`/v1/server/${id}/activity`, cookie)).json().result.entries as { action: string; target: string }[];
    expect(log.find((e) => e.action === 'server.version')?.target).toBe('1.21.4 → 1.20.4');

    // The next start runs it: the game answers the status ping as 1.20.4.
    expect((await post(`/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      async () => (await get(`/v1/server/${id}`, cookie)).json().result.state,
      (state) => state === 'online',
    );
    const status = (await mc.ping({ host: '127.0.0.1', port: server.port as number, version: '1.20.4' })) as { version: { name: string } };
    expect(status.version.name).toBe('1.20.4');
    expect((await post(`/v1/server/${id}/stop`, cookie)).json().status).toBe('SUCCESS');
  });

  it('deletes a server with its files', async () => {
    const { cookie } = await account();
    const id = (await create(cookie)).json().result.serverId;
    const folder = path.join(agent.dataDir, 'servers', id);
    await until(
      () => existsSync(path.join(folder, 'server.properties')),
      (v) => v,
    );
    const res = await t.app.inject({ method: 'DELETE', url: `/v1/server/${id}`, headers: { cookie }, remoteAddress: uniqueIp() });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    expect(existsSync(folder)).toBe(false);
    expect((await get(`/v1/server/${id}`, cookie)).statusCode).toBe(404);
    expect((await get('/v1/user/servers', cookie)).json().result).toEqual([]);
  });
});

describe('public server list', () => {
  it('lists only servers their owners opted in, with live state and the direct address, and no private data', async () => {
    const owner = await account();
    const stranger = await account();
    const created = (await create(owner.cookie)).json().result;
    const id = created.serverId as string;
    expect(created.publicListing).toBe(false);
    const names = async () => ((await get('/v1/servers/list')).json().result.servers as { name: string }[]).map((e) => e.name);
    expect(await names()).not.toContain(created.name);

    // Only someone who may change the server's appearance can list it; others learn nothing.
    expect((await post(`/v1/server/${id}/appearance`, stranger.cookie, { publicListing: true })).json().status).toBe('NOT_FOUND');
    expect((await post(`/v1/server/${id}/appearance`, owner.cookie, { publicListing: 'yes' })).json()).toMatchObject({
      status: 'INVALID_INPUT',
    });
    // Listed once the node has made its folder (as the owner does from the page), so its MOTD can be read.
    await until(
      async () => (await get(`/v1/server/${id}/files/list?path=/`, owner.cookie)).json().status,
      (status) => status === 'SUCCESS',
    );
    const listed = await post(`/v1/server/${id}/appearance`, owner.cookie, { publicListing: true });
    expect(listed.json().result.publicListing).toBe(true);

    // No session needed to read the list. Its MOTD is read from the folder once the server is listed.
    const entry = await until(
      async () =>
        ((await get(`/v1/servers/list?q=${created.name}`)).json().result.servers as Record<string, unknown>[]).find(
          (e) => e.name === created.name,
        ),
      (e) => Boolean(e?.motd),
    );
    expect(entry).toEqual({
      name: created.name,
      software: 'flying-squid',
      version: created.version,
      state: 'offline',
      players: { online: 0, max: 10 },
      motd: `${created.name} on Spawnpoint`,
      icon: null,
      address: `localhost:${created.port}`,
      // No join proxy is connected in this app: the name address would lead nowhere.
      joinAddress: null,
      createdAt: created.createdAt,
    });
    expect((await get(`/v1/servers/list/${created.name}`)).json().result).toEqual(entry);
    expect(JSON.stringify(entry)).not.toContain(owner.email);

    await post(`/v1/server/${id}/appearance`, owner.cookie, { publicListing: false });
    expect(await names()).not.toContain(created.name);
    expect((await get(`/v1/servers/list/${created.name}`)).json().status).toBe('NOT_FOUND');
  });

  it('searches by name, filters by software and version, sorts by players or newest, pages, and serves the saved MOTD and icon', async () => {
    // Names the create form takes (no restricted word, digit swaps undone, in any of the three).
    let tag = '';
    do tag = `q${Date.now().toString(36).slice(-5)}${Math.floor(Math.random() * 100)}`;
    while ([0, 1, 2].some((i) => isRestrictedName(`${tag}n${i}`)));
    const made: { id: string; name: string; cookie: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const owner = await account();
      const name = `${tag}n${i}`;
      const created = (await create(owner.cookie, { serverName: name })).json().result;
      await post(`/v1/server/${created.serverId}/appearance`, owner.cookie, { publicListing: true });
      made.push({ id: created.serverId as string, name, cookie: owner.cookie });
    }
    const list = async (query: string) => (await get(`/v1/servers/list?q=${tag}${query}`)).json().result;
    expect((await list('&sort=newest')).servers.map((e: { name: string }) => e.name)).toEqual([`${tag}n2`, `${tag}n1`, `${tag}n0`]);
    expect((await list('')).servers.map((e: { name: string }) => e.name)).toEqual([`${tag}n0`, `${tag}n1`, `${tag}n2`]);
    expect(await list('&software=paper')).toMatchObject({ servers: [], total: 0 });
    expect((await list('&software=flying-squid&version=1.21.4')).total).toBe(3);
    // The version filter's choices: what listed servers of the chosen software run (none without a software).
    expect((await list('&software=flying-squid')).versions).toContain('1.21.4');
    expect((await list('')).versions).toEqual([]);
    expect((await list('&version=1.8.8')).total).toBe(0);
    const all = (await get('/v1/servers/list?page=1')).json().result;
    expect(all).toMatchObject({ page: 1, pageSize: 24 });
    expect(all.total).toBeGreaterThanOrEqual(3);
    expect((await get('/v1/servers/list?page=9999')).json().result.servers).toEqual([]);
    expect((await get('/v1/servers/list?sort=random')).json().status).toBe('INVALID_INPUT');

    // The Appearance page's MOTD and icon reach the list at once.
    const [first] = made;
    await put(`/v1/server/${first!.id}/appearance`, first!.cookie, { motd: '&aHello &lthere' });
    const icon = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#3355ff' } })
      .png()
      .toBuffer();
    await put(`/v1/server/${first!.id}/appearance/icon`, first!.cookie, { image: icon.toString('base64') });
    const entry = (await list('n0')).servers[0];
    expect(entry).toMatchObject({
      name: `${tag}n0`,
      motd: '§aHello §lthere',
      icon: expect.stringMatching(new RegExp(`^/v1/servers/list/${tag}n0/icon\\?v=[0-9a-f]{12}$`)),
    });
    const served = await t.app.inject({ method: 'GET', url: entry.icon as string });
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.rawPayload.equals(icon)).toBe(true);
    // A new icon gets a new address.
    await put(`/v1/server/${first!.id}/appearance/icon`, first!.cookie, {
      image: (
        await sharp({ create: { width: 64, height: 64, channels: 4, background: '#ff0000' } })
          .png()
          .toBuffer()
      ).toString('base64'),
    });
    expect((await list('n0')).servers[0].icon).not.toBe(entry.icon);
    expect((await get(`/v1/servers/list/${made[1]!.name}/icon`)).json().status).toBe('NOT_FOUND');

    // A MOTD written straight into server.properties (file manager, game code) that the Appearance page
    // would refuse is not shown to visitors: a restricted word, or more lines than the list has.
    const second = made[1]!;
    for (const motd of ['nazi stuff', 'one\\ntwo\\nthree']) {
      await put(`/v1/server/${second.id}/appearance`, second.cookie, { motd: '&aFine' });
      expect((await list('n1')).servers[0].motd).toBe('§aFine');
      const file = `motd=${motd}\nserver-port=25565\n`;
      expect(
        (await put(`/v1/server/${second.id}/files/content`, second.cookie, { path: '/server.properties', content: file })).json().status,
      ).toBe('SUCCESS');
      await post(`/v1/server/${second.id}/appearance`, second.cookie, { publicListing: false });
      await post(`/v1/server/${second.id}/appearance`, second.cookie, { publicListing: true });
      await until(
        async () => (await list('n1')).servers[0]?.motd,
        (shown) => shown === '',
      );
    }
  });

  it('sends a watching visitor (no session) the live state and players of a listed server, and only those it watches', async () => {
    const owner = await account();
    const created = (await create(owner.cookie)).json().result;
    await post(`/v1/server/${created.serverId}/appearance`, owner.cookie, { publicListing: true });
    const visitor = connect(`${base}/public-list`, { transports: ['websocket'], reconnection: false });
    sockets.push(visitor);
    const seen: { name: string; state: string }[] = [];
    visitor.on('public:server', (event: { name: string; state: string }) => seen.push(event));
    await new Promise<void>((resolve) => visitor.on('connect', () => resolve()));
    // A list as big as a page, with another server's name the visitor does not show.
    visitor.emit('public:watch', { names: [created.name, 'someone-else'] });
    // Not a valid message: ignored, the socket stays.
    visitor.emit('public:watch', { names: 'all' });
    expect((await post(`/v1/server/${created.serverId}/start`, owner.cookie)).json().status).toBe('SUCCESS');
    await until(
      () => seen,
      (events) => events.some((e) => e.name === created.name && e.state === 'online'),
    );
    expect(seen.every((e) => e.name === created.name)).toBe(true);
    expect(visitor.connected).toBe(true);
    visitor.disconnect();
    await post(`/v1/server/${created.serverId}/stop`, owner.cookie);
  });

  it('holds at most a few anonymous list sockets per address', async () => {
    const opened = Array.from({ length: 9 }, () => connect(`${base}/public-list`, { transports: ['websocket'], reconnection: false }));
    sockets.push(...opened);
    await until(
      () => opened.filter((s) => s.connected).length + opened.filter((s) => !s.active).length,
      (n) => n === 9,
    );
    expect(opened.filter((s) => s.connected)).toHaveLength(8);
  });
});

describe('player slots', () => {
  it("shows the slots the server runs with: its server.properties, never more than the plan's", async () => {
    const { cookie } = await account();
    const server = (await create(cookie)).json().result;
    const id = server.serverId as string;
    const slots = async () => (await get('/v1/user/servers', cookie)).json().result[0].players.max;
    await until(slots, (max) => max === FREE_MAX_PLAYERS);
    const properties = async (max: number) => {
      // Through the file editor, as a user may: the typed form is not the only way in.
      // The node installs the folder right after creation.
      const answer: { status: string; result?: { content: string } } = await until(
        async () => (await get(`/v1/server/${id}/files/content?path=/server.properties`, cookie)).json(),
        (a: { status: string }) => a.status === 'SUCCESS',
      );
      const text = answer.result?.content ?? '';
      const next = text.replace(/^max-players=.*$/m, `max-players=${max}`);
      const saved = await t.app.inject({
        method: 'PUT',
        url: `/v1/server/${id}/files/content`,
        headers: { cookie },
        payload: { path: '/server.properties', content: next },
        remoteAddress: uniqueIp(),
      });
      expect(saved.json().status).toBe('SUCCESS');
    };
    await properties(8);
    expect((await post(`/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(slots, (max) => max === 8);
    // The game itself answers the same number (the node pings it for the stats).
    await until(
      async () => (await get(`/v1/server/${id}`, cookie)).json().result.stats?.players.max,
      (max) => max === 8,
    );
    await post(`/v1/server/${id}/stop`, cookie);
    await until(
      async () => (await get(`/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'offline',
    );

    // More than the plan allows is capped by the node, in the dashboard and in the game.
    await properties(50);
    expect((await post(`/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(slots, (max) => max === FREE_MAX_PLAYERS);
    await until(
      async () => (await get(`/v1/server/${id}`, cookie)).json().result.stats?.players.max,
      (max) => max === FREE_MAX_PLAYERS,
    );
    await post(`/v1/server/${id}/kill`, cookie);
  });
});

describe('a console flood of wide lines', () => {
  it('keeps the node connected and loses no line below the output guard, with multi-byte characters intact', async () => {
    // 1.20.4 runs on Java 17, the Java every development machine here has.
    buildFakeJar(path.join(agent.dataDir, 'software/paper/1.20.4.jar'));
    const { cookie } = await account();
    const server = (await create(cookie, { software: 'paper', version: '1.20.4' })).json().result;
    const id = server.serverId as string;
    // A Java server does not start before its owner accepted the Minecraft EULA.
    expect((await get(`/v1/server/${id}`, cookie)).json().result.eulaAccepted).toBe(false);
    const refused = await post(`/v1/server/${id}/start`, cookie);
    expect([refused.statusCode, refused.json().message]).toEqual([409, eulaMessages.required]);
    expect((await post(`/v1/server/${id}/eula`, cookie, { accept: true })).json().result.eulaAccepted).toBe(true);
    expect((await post(`/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      async () => (await get(`/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'online',
    );
    const token = (await get('/v1/user/websocket', cookie)).json().result.token;
    const socket = connect(base, { transports: ['websocket'], reconnection: false });
    sockets.push(socket);
    const seen = new Set<number>();
    let intact = true;
    let done = false;
    let replayed = false;
    socket.on('server:console', (e: { serverId: string; lines: string[] }) => {
      if (e.serverId !== id) return;
      replayed = true;
      for (const line of e.lines) {
        const match = / flood (\d+) t=/.exec(line);
        if (match) {
          seen.add(Number(match[1]));
          if (!line.includes('紅') || !line.includes('世界のブロック')) intact = false;
        }
        if (line.includes('flood done')) done = true;
      }
    });
    await new Promise<void>((resolve) => {
      socket.once('auth:success', () => resolve());
      socket.emit('auth', { token });
    });
    socket.emit('server:subscribe', { serverId: id });
    // The history replayed on subscribing says the subscription is live.
    await until(
      () => replayed,
      (r) => r,
    );
    // Below the guard's 25,000 lines/s; each line is ~150 bytes once encoded (colour codes and CJK).
    expect((await post(`/v1/server/${id}/command`, cookie, { command: 'floodwide 20000 20000' })).json().status).toBe('SUCCESS');
    await until(
      () => done,
      (d) => d,
      60_000,
    );
    expect(seen.size).toBe(20000);
    expect(intact).toBe(true);
    expect((await get('/healthz')).json().result.agents).toContain('test-node');
    await post(`/v1/server/${id}/kill`, cookie);
  });
});

describe('game ports held by another program', () => {
  /** Another program listens on `port` (if one already does — ports of this machine are shared — so much the better). */
  const hold = async (port: number) => {
    const squatter = createServer();
    await new Promise<void>((resolve) => {
      squatter.once('error', () => resolve());
      squatter.listen(port, '0.0.0.0', resolve);
    });
    return squatter;
  };

  it('skips them when placing a new server, and moves a server whose port was taken before starting it', async () => {
    const { cookie } = await account();
    const used = new Set((await t.ctx.database.db.select({ port: serverTable.port }).from(serverTable)).map((r) => r.port));
    const [low] = agent.nodeConfig.portRange.split('-').map(Number) as [number];
    const next: number[] = [];
    for (let p = low; next.length < 2; p++) if (!used.has(p)) next.push(p);
    const held = await Promise.all(next.map(hold));
    try {
      const server = (await create(cookie)).json().result;
      expect(next).not.toContain(server.port);
      // Another program takes this server's port after it was placed: the start moves it.
      held.push(await hold(server.port));
      expect((await post(`/v1/server/${server.serverId}/start`, cookie)).json().status).toBe('SUCCESS');
      const moved = await until(
        async () => (await get(`/v1/server/${server.serverId}`, cookie)).json().result,
        (s: { state: string; port: number }) => s.state === 'online',
      );
      expect(moved.port).not.toBe(server.port);
      expect(next).not.toContain(moved.port);
      await post(`/v1/server/${server.serverId}/kill`, cookie);
    } finally {
      for (const s of held) if (s.listening) s.close();
    }
  });
});

describe('node isolation', () => {
  it("ignores one node's events about another node's server, and refuses its token for another node", async () => {
    const { cookie } = await account();
    const server = (await create(cookie)).json().result;
    expect(server.state).toBe('offline');
    // Another node's token under this node's name is refused.
    const impostor = connect(`${base}/agent`, {
      auth: { nodeId: 'test-node', token: otherNode.token },
      transports: ['websocket'],
      reconnection: false,
    });
    sockets.push(impostor);
    await new Promise<void>((resolve) => impostor.once('connect_error', () => resolve()));
    // The other node with its own token may connect, but what it says about this server is dropped.
    const other = connect(`${base}/agent`, {
      auth: { nodeId: 'other-node', token: otherNode.token },
      transports: ['websocket'],
      reconnection: false,
    });
    sockets.push(other);
    await new Promise<void>((resolve) => other.once('connect', () => resolve()));
    other.emit('agent:state', { serverId: server.serverId, state: 'online' });
    other.emit('agent:console', { serverId: server.serverId, lines: ['forged line from another node'] });
    other.emit('agent:hello', { protocol: 1, nodeId: 'other-node', servers: [{ serverId: server.serverId, state: 'online' }] });
    other.disconnect();
    // Events of one socket are handled in order: once its disconnect is seen, the forged events were too.
    await until(
      async () => (await get('/healthz')).json().result.agents,
      (a: string[]) => !a.includes('other-node'),
    );
    const seen = (await get(`/v1/server/${server.serverId}`, cookie)).json().result;
    expect(seen.state).toBe('offline');
    expect(t.ctx.game.hub.stateOf(server.serverId)).toBe('offline');
  });
});

describe('without a connected node', () => {
  it('answers NO_SERVERS_AVAILABLE', async () => {
    const lonely = await buildTestApp();
    try {
      const res = await lonely.app.inject({
        method: 'POST',
        url: '/v1/auth/register',
        payload: { emailAddress: uniqueEmail('lonely'), password: 'long enough password' },
        remoteAddress: uniqueIp(),
      });
      const userId = res.json().result.userId;
      await lonely.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
      lonely.ctx.sessions.forgetUser(userId);
      const created = await lonely.app.inject({
        method: 'POST',
        url: '/v1/server/create',
        headers: { cookie: cookieFrom(res.headers['set-cookie']) },
        payload: { serverName: uniqueName() },
        remoteAddress: uniqueIp(),
      });
      expect(created.statusCode).toBe(503);
      expect(created.json().status).toBe('NO_SERVERS_AVAILABLE');
    } finally {
      await lonely.cleanup();
    }
  });
});
