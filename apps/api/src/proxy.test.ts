import { randomBytes } from 'node:crypto';
import { connect, type AddressInfo, type Socket } from 'node:net';
import mc from 'minecraft-protocol';
import { joinStartRefusal, WAKE_COOLDOWN_MS, wakeCooldownMessage } from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import { servers } from './db/schema.ts';
import mineflayer, { type Bot } from 'mineflayer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { prepareAgent, type AgentProcess } from './test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester, type Send } from './test/build-test-app.ts';
import { prepareProxy, type ProxyProcess } from './test/proxy-process.ts';
import { joinThroughProxy } from './test/server-watch.ts';
import { PLAY_TIME_TICK_MS } from './servers/play-time.ts';

// The join proxy as players meet it: a real proxy process, the real API and a real agent running real
// flying-squid servers, and real Minecraft clients that send the server's name in their handshake
// (minecraft-protocol's fakeHost, as a player's client sends the address it was given).

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;
const DOMAIN = 'play.example.test';
let t: TestApp;
let agent: AgentProcess;
let proxy: ProxyProcess;
let send: Send;
const bots: Bot[] = [];

beforeAll(async () => {
  const token = randomBytes(32).toString('hex');
  agent = await prepareAgent();
  proxy = await prepareProxy(token);
  t = await buildTestApp({
    AGENTS: JSON.stringify([agent.nodeConfig]),
    PLAY_DOMAIN: DOMAIN,
    PROXY_TOKEN: token,
    PROXY_PORT: String(proxy.port),
  });
  send = requester(t.app);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  agent.start(base);
  proxy.start(base);
  await until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
  await until(
    () => t.ctx.game.proxies.connected(),
    (connected) => connected,
  );
}, 90_000);

afterAll(async () => {
  for (const bot of bots) bot.end();
  await proxy?.stop();
  await t?.cleanup();
  await agent?.stop();
});

async function server(prefix: string) {
  const { cookie, id } = await ownerWithServer(t, prefix);
  const details = (await send('GET', `/v1/server/${id}`, cookie)).json().result as {
    name: string;
    joinAddress: string;
    joinByName: boolean;
  };
  return { cookie, id, ...details };
}

const stateOf = (id: string) => t.ctx.game.hub.stateOf(id);

function ping(host: string) {
  // The name goes in the handshake; the connection goes to the proxy on 127.0.0.1.
  return mc.ping({ host, port: proxy.port, version: '1.21.4', stream: connect(proxy.port, '127.0.0.1') } as Parameters<
    typeof mc.ping
  >[0] & {
    stream: Socket;
  }) as Promise<{ version: { name: string; protocol: number }; players: { online: number; max: number }; description: unknown }>;
}

const motdOf = (description: unknown) => (typeof description === 'string' ? description : JSON.stringify(description));

const join = (name: string, username: string) => joinThroughProxy(proxy.port, `${name}.${DOMAIN}`, username, bots);

describe('joining by name through the join proxy', () => {
  it('shows the join address with the proxy port and says joining by name works while a proxy is connected', async () => {
    const { name, joinAddress, joinByName } = await server('addr');
    expect(joinAddress).toBe(`${name}.${DOMAIN}:${proxy.port}`);
    expect(joinByName).toBe(true);
  });

  it('answers the status ping of an offline server itself, without starting it', async () => {
    const { id, name } = await server('ping');
    const status = await ping(`${name}.${DOMAIN}`);
    expect(status.version).toEqual({ name: '1.21.4', protocol: 769 });
    expect(status.players).toMatchObject({ online: 0, max: 10 });
    expect(motdOf(status.description)).toContain('Offline — join to start it');
    // Another ping, with the name in capitals and a Forge marker, reaches the same answer.
    expect(motdOf((await ping(`${name.toUpperCase()}.${DOMAIN}.\0FML3\0`)).description)).toContain('Offline — join to start it');
    expect(stateOf(id)).toBe('offline');
  });

  it('tells a client of the newest version which version a server of an older one needs, asleep and running', async () => {
    // mineflayer speaks 1.21.4 at newest; the server runs 1.20.4.
    const { cookie, id } = await ownerWithServer(t, 'older', { version: '1.20.4' });
    const { name, host, port } = (await send('GET', `/v1/server/${id}`, cookie)).json().result as {
      name: string;
      host: string;
      port: number;
    };
    const words =
      "This server runs Minecraft 1.20.4 — choose 1.20.4 in your launcher's installations, or ask its owner to change the version.";
    // The list shows the server's own version and protocol, so the launcher marks it incompatible.
    expect((await ping(`${name}.${DOMAIN}`)).version).toEqual({ name: '1.20.4', protocol: 765 });
    // Asleep: the proxy says so at once and wakes nothing.
    await expect(join(name, 'Newer')).rejects.toThrow(words);
    expect(stateOf(id)).toBe('offline');
    // Running: the built-in runtime says the same, directly and through the proxy (which forwards).
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      () => stateOf(id),
      (state) => state === 'online',
    );
    const direct = mineflayer.createBot({ host, port, username: 'Direct', auth: 'offline', version: '1.21.4' });
    bots.push(direct);
    const kicked = await new Promise<string>((resolve) => direct.once('kicked', (reason: unknown) => resolve(JSON.stringify(reason))));
    expect(kicked).toContain(words);
    await expect(join(name, 'Newer')).rejects.toThrow(words);
    expect((await send('POST', `/v1/server/${id}/stop`, cookie)).json().status).toBe('SUCCESS');
  });

  it('says "No server with this name" for a name nobody has', async () => {
    expect(motdOf((await ping(`nobody-here.${DOMAIN}`)).description)).toContain('No server with this name');
    await expect(join('nobody-here', 'Lost')).rejects.toThrow(/No server with this name/);
  });

  it('wakes an offline server when a player joins it by name, and the same join spawns in the world', async () => {
    const { id, name } = await server('wake');
    expect(stateOf(id)).toBe('offline');
    const bot = await join(name, 'Sleeper');
    expect(bot.entity.position).toBeDefined();
    expect(stateOf(id)).toBe('online');
    // The player is really in that world: the game lists them.
    await until(
      () => t.ctx.game.hub.statsOf(id)?.players.list ?? [],
      (list) => list.includes('Sleeper'),
    );
    // Now online, the proxy passes the status ping to the game itself.
    expect(motdOf((await ping(`${name}.${DOMAIN}`)).description)).toContain(`${name} on Spawnpoint`);
    bot.end();
  });

  it('does not start a server by any join soon after a join started it and nobody played; its owner still can', async () => {
    const { id, name, cookie } = await server('unplayed');
    const settled = (state: string) =>
      until(
        () => stateOf(id),
        (s) => s === state,
        60_000,
      );
    expect(await t.ctx.game.proxies.wake(id, 'Walker')).toEqual({ result: 'started' });
    await settled('online');
    expect((await send('POST', `/v1/server/${id}/stop`, cookie)).json().status).toBe('SUCCESS');
    await settled('offline');
    // Nobody played after that join: no join within the cooldown starts it, whoever joins (names cost nothing),
    // and the refusal says when one will.
    for (const player of ['walker', 'Runner', 'bot2']) {
      expect(await t.ctx.game.proxies.wake(id, player)).toEqual({
        result: 'refused',
        message: wakeCooldownMessage(WAKE_COOLDOWN_MS / 60_000),
      });
    }
    expect(stateOf(id)).toBe('offline');
    // The owner's Start is not held back; once someone plays, joins start it again.
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await settled('online');
    let played = false;
    t.ctx.game.hub.intake.onInGame((serverId, count) => (played ||= serverId === id && count > 0));
    const bot = await join(name, 'Walker');
    // The API has heard of the player from the game's own join line (what the budget counts).
    await until(
      () => played,
      (p) => p,
    );
    bot.end();
    expect((await send('POST', `/v1/server/${id}/stop`, cookie)).json().status).toBe('SUCCESS');
    await settled('offline');
    expect(await t.ctx.game.proxies.wake(id, 'Walker')).toEqual({ result: 'started' });
    await settled('online');
    await send('POST', `/v1/server/${id}/kill`, cookie);
  });

  it("keeps a stopped server stopped when its owner chose 'only from sleep' or 'never'", async () => {
    const { id, name, cookie } = await server('kept');
    expect((await send('GET', `/v1/server/${id}`, cookie)).json().result.joinStart).toBe('always');
    const bad = await send('POST', `/v1/server/${id}/join-start`, cookie, { joinStart: 'sometimes' });
    expect([bad.statusCode, bad.json().status]).toEqual([400, 'INVALID_INPUT']);
    const set = await send('POST', `/v1/server/${id}/join-start`, cookie, { joinStart: 'sleeping' });
    expect(set.json().result.joinStart).toBe('sleeping');
    // The proxy's server list entry says so (the route is pushed at once) and a login is refused.
    await until(
      async () => motdOf((await ping(`${name}.${DOMAIN}`)).description),
      (motd) => motd.includes('Offline — its owner starts it'),
    );
    await expect(join(name, 'Stranger')).rejects.toThrow(/doesn't start when players join/);
    expect(stateOf(id)).toBe('offline');
    // The API decides too, whatever route a proxy holds.
    expect(await t.ctx.game.proxies.wake(id, 'Stranger')).toEqual({ result: 'refused', message: joinStartRefusal });
    await send('POST', `/v1/server/${id}/join-start`, cookie, { joinStart: 'never' });
    expect(await t.ctx.game.proxies.wake(id, 'Stranger')).toEqual({ result: 'refused', message: joinStartRefusal });
    expect(stateOf(id)).toBe('offline');

    // A join that waits in the server's power line (behind a restore, an upload to storage) is decided when
    // its turn comes: the owner switching to "never" meanwhile keeps the server stopped.
    await send('POST', `/v1/server/${id}/join-start`, cookie, { joinStart: 'always' });
    const [row] = await t.ctx.database.db.select().from(servers).where(eq(servers.id, id));
    const power = t.ctx.game.power;
    const run = power.run.bind(power);
    let inLine!: () => void;
    const waiting = new Promise<void>((resolve) => (inLine = resolve));
    const spy = vi.spyOn(power, 'run').mockImplementation((server, action, guard) => {
      const done = run(server, action, guard);
      inLine();
      return done;
    });
    let woken: Promise<unknown> = Promise.resolve();
    try {
      await power.exclusive(row!, async () => {
        woken = t.ctx.game.proxies.wake(id, 'Stranger');
        // The wake passed its first check (the setting said "always") and waits in the line now.
        await waiting;
        await send('POST', `/v1/server/${id}/join-start`, cookie, { joinStart: 'never' });
      });
    } finally {
      spy.mockRestore();
    }
    expect(await woken).toEqual({ result: 'refused', message: joinStartRefusal });
    expect(stateOf(id)).toBe('offline');
    const log = (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result;
    expect(log.entries.map((e: { target: string }) => e.target)).toEqual(
      expect.arrayContaining(['join-start=sleeping', 'join-start=never']),
    );
  });

  it('does not start a server for a player it bans or whose name is not on its whitelist', async () => {
    const { id, name, cookie } = await server('guarded');
    const players = (body: object) => send('POST', `/v1/server/${id}/players`, cookie, body);
    expect((await players({ action: 'ban', name: 'Griefer' })).json().status).toBe('SUCCESS');
    await expect(join(name, 'griefer')).rejects.toThrow(/You are banned from this server/);
    expect((await players({ action: 'whitelist-add', name: 'Friend' })).json().status).toBe('SUCCESS');
    expect((await players({ action: 'whitelist', enabled: true })).json().status).toBe('SUCCESS');
    await expect(join(name, 'Stranger')).rejects.toThrow(/not white-listed/);
    expect(stateOf(id)).toBe('offline');
    // Someone the server lets in starts it as before.
    const bot = await join(name, 'Friend');
    expect(stateOf(id)).toBe('online');
    bot.end();
  });

  it("forgets a deleted account's running server: its name is free at the proxy and its play time is not saved", async () => {
    const { cookie, name } = await server('gone');
    const bot = await join(name, 'Leaver');
    const dropped = new Promise((resolve) => bot.once('end', resolve));
    const errors = vi.spyOn(t.app.log, 'error');
    expect((await send('POST', '/v1/user/delete', cookie, { password: 'long enough password' })).json().status).toBe('SUCCESS');
    await dropped;
    expect(motdOf((await ping(`${name}.${DOMAIN}`)).description)).toContain('No server with this name');
    // Nothing names the missing account afterwards (its play time was saved every second, refused each time).
    // An absence can only be watched over time: three of play time's ticks.
    await new Promise((resolve) => setTimeout(resolve, 3 * PLAY_TIME_TICK_MS));
    expect(errors.mock.calls.map((call) => JSON.stringify(call).slice(0, 200))).toEqual([]);
    errors.mockRestore();
  });

  it('reaches two servers behind one proxy by their names', async () => {
    const first = await server('one');
    const second = await server('two');
    for (const s of [first, second]) expect((await send('POST', `/v1/server/${s.id}/start`, s.cookie)).json().status).toBe('SUCCESS');
    await until(
      () => [stateOf(first.id), stateOf(second.id)],
      (states) => states.every((s) => s === 'online'),
      60_000,
    );
    expect(motdOf((await ping(`${first.name}.${DOMAIN}`)).description)).toContain(`${first.name} on Spawnpoint`);
    expect(motdOf((await ping(`${second.name}.${DOMAIN}`)).description)).toContain(`${second.name} on Spawnpoint`);
    const bot = await join(second.name, 'Visitor');
    await until(
      () => t.ctx.game.hub.statsOf(second.id)?.players.list ?? [],
      (list) => list.includes('Visitor'),
    );
    expect(t.ctx.game.hub.statsOf(first.id)?.players.list ?? []).not.toContain('Visitor');
    bot.end();
  });
});
