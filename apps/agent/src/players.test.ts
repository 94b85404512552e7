import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { offlineUuid, serverPlayersResult, type ServerPlayers } from '@spawnpoint/contracts';
import { createClient } from 'minecraft-protocol';
import mineflayer, { type Bot } from 'mineflayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { installBuiltin, startTestAgent, type TestAgent } from '../test-support/test-agent.ts';

let t: TestAgent;
const bots: Bot[] = [];

beforeAll(async () => {
  t = await startTestAgent('players');
});
afterAll(async () => {
  for (const bot of bots) bot.end();
  await t.close();
});

const stateOf = (id: string) => t.agent.servers.get(id)?.state;
const consoleOf = (id: string) => t.agent.servers.get(id)?.console.lines().join('\n') ?? '';
/** Console lines arrive as the game prints them: waits for one. */
const consoleShows = (id: string, text: string) =>
  until(
    () => consoleOf(id),
    (c) => c.includes(text),
  );
const folder = (id: string, file: string) => path.join(t.dataDir, 'servers', id, file);
const readJson = (id: string, file: string) => JSON.parse(readFileSync(folder(id, file), 'utf8')) as unknown;

const install = (serverId: string) => installBuiltin(t, serverId, { motd: 'Players test' });

async function power(serverId: string, action: 'start' | 'stop', until_: 'online' | 'offline') {
  expect((await t.call('POST', `/v1/servers/${serverId}/power`, { action })).body.status).toBe('SUCCESS');
  await until(
    () => stateOf(serverId),
    (s) => s === until_,
  );
}

async function change(serverId: string, body: unknown): Promise<ServerPlayers> {
  const res = await t.call('POST', `/v1/servers/${serverId}/players`, body);
  expect(res.body.status, res.body.message).toBe('SUCCESS');
  return serverPlayersResult.parse(res.body.result);
}

async function players(serverId: string): Promise<ServerPlayers> {
  return serverPlayersResult.parse((await t.call('GET', `/v1/servers/${serverId}/players`)).body.result);
}

/** A real client: resolves when it spawned, rejects with the words of a refusal. */
function join(port: number, username: string): Promise<Bot> {
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, auth: 'offline', version: '1.21.4' });
  bots.push(bot);
  return new Promise((resolve, reject) => {
    bot.once('spawn', () => resolve(bot));
    bot.once('kicked', (reason: unknown) => reject(new Error(`kicked: ${typeof reason === 'string' ? reason : JSON.stringify(reason)}`)));
    bot.once('error', reject);
  });
}

function kickedWith(bot: Bot): Promise<string> {
  return new Promise((resolve) =>
    bot.once('kicked', (reason: unknown) => resolve(typeof reason === 'string' ? reason : JSON.stringify(reason))),
  );
}

describe('players on the built-in runtime (real flying-squid, real clients)', () => {
  it('applies whitelist and bans written while offline: a player not on the list and a banned one are refused at login, with the reason', async () => {
    const port = await install('wl1');
    await change('wl1', { action: 'whitelist-add', name: 'Friend' });
    await change('wl1', { action: 'whitelist-add', name: 'Griefer' });
    await change('wl1', { action: 'ban', name: 'Griefer', reason: 'Broke the spawn' });
    const seen = await change('wl1', { action: 'whitelist', enabled: true });
    expect(seen.whitelistEnabled).toBe(true);
    expect(seen.running).toBe(false);
    // Java's formats, with the UUIDs an offline-mode server gives these names.
    expect(readJson('wl1', 'whitelist.json')).toEqual([
      { uuid: offlineUuid('Friend'), name: 'Friend' },
      { uuid: offlineUuid('Griefer'), name: 'Griefer' },
    ]);
    expect(readJson('wl1', 'banned-players.json')).toEqual([
      expect.objectContaining({ uuid: offlineUuid('Griefer'), name: 'Griefer', expires: 'forever', reason: 'Broke the spawn' }),
    ]);
    expect(readFileSync(folder('wl1', 'server.properties'), 'utf8')).toContain('white-list=true');

    await power('wl1', 'start', 'online');
    await expect(join(port, 'Outsider')).rejects.toThrow('You are not white-listed on this server!');
    await expect(join(port, 'Griefer')).rejects.toThrow('Broke the spawn');
    await expect(join(port, 'griefer')).rejects.toThrow('You are banned from this server.');
    await join(port, 'Friend');
    await consoleShows('wl1', 'Outsider was refused');

    // Turned off from the page while running: the game takes the console command and writes the file.
    const off = await change('wl1', { action: 'whitelist', enabled: false });
    expect(off.whitelistEnabled).toBe(false);
    await consoleShows('wl1', 'Whitelist is now turned off');
    await join(port, 'Outsider');
    await power('wl1', 'stop', 'offline');
  });

  it('a player who leaves while still joining is not counted as in the game (the server can still sleep)', async () => {
    const port = await install('ghost1');
    await power('ghost1', 'start', 'online');
    // The first player of a new world leaves while the world is still being made for them; the game
    // finishes that login afterwards, and says so ("spawning player") when it does.
    const ghost = createClient({ host: '127.0.0.1', port, username: 'Ghost', auth: 'offline', version: '1.21.4' });
    ghost.once('login', () => ghost.end('gone'));
    await consoleShows('ghost1', 'Ghost disconnected');
    await consoleShows('ghost1', 'Position written, spawning player...');
    const lines = consoleOf('ghost1').split('\n');
    const count = (what: string) => lines.filter((line) => line.endsWith(`Ghost ${what} the game`)).length;
    expect(count('joined')).toBe(count('left'));
    await power('ghost1', 'stop', 'offline');
  });

  it('kicks a player with the reason, and keeps operators and bans made live across a restart', async () => {
    const port = await install('live1');
    await power('live1', 'start', 'online');
    const steve = await join(port, 'Steve');
    await until(
      () => players('live1'),
      (p) => p.online.includes('Steve'),
    );

    const kicked = kickedWith(steve);
    await change('live1', { action: 'kick', name: 'Steve', reason: 'Time for dinner' });
    expect(await kicked).toContain('Time for dinner');
    await expect(change('live1', { action: 'kick', name: 'Nobody' })).resolves.toBeTruthy();
    await consoleShows('live1', 'Nobody is not online');

    const opped = await change('live1', { action: 'op', name: 'Alex' });
    expect(opped.operators).toEqual([{ name: 'Alex', uuid: offlineUuid('Alex'), level: 4 }]);
    const banned = await change('live1', { action: 'ban', name: 'Herobrine', reason: 'Spooky' });
    expect(banned.bans).toEqual([expect.objectContaining({ name: 'Herobrine', reason: 'Spooky' })]);
    expect(readJson('live1', 'ops.json')).toEqual([{ uuid: offlineUuid('Alex'), name: 'Alex', level: 4, bypassesPlayerLimit: false }]);

    await power('live1', 'stop', 'offline');
    await power('live1', 'start', 'online');
    await consoleShows('live1', 'Players: 1 operator(s), 0 on the whitelist (off), 1 banned.');
    const after = await players('live1');
    expect(after.operators.map((o) => o.name)).toEqual(['Alex']);
    await expect(join(port, 'Herobrine')).rejects.toThrow('Spooky');

    // An operator may use operator commands in the game; a player who is not may not.
    const alex = await join(port, 'Alex');
    alex.chat('/ban Notch Rude');
    await until(
      () => players('live1'),
      (p) => p.bans.some((b) => b.name === 'Notch'),
    );
    await change('live1', { action: 'deop', name: 'Alex' });
    await change('live1', { action: 'pardon', name: 'Herobrine' });
    await join(port, 'Herobrine');
    await power('live1', 'stop', 'offline');
    expect(readJson('live1', 'ops.json')).toEqual([]);
  });

  it("puts a new player in the game mode the server's properties name (creative), as the client shows it", async () => {
    const port = await install('creative1');
    expect((await t.call('PUT', '/v1/servers/creative1/properties', { values: { gamemode: 'creative' } })).body.status).toBe('SUCCESS');
    await power('creative1', 'start', 'online');
    const bot = await join(port, 'Builder');
    // The client's own idea of its mode (what decides flying, instant breaking and the creative inventory).
    expect(bot.game.gameMode).toBe('creative');
  });

  it('pvp off: a player hitting another does no damage (on: it does)', async () => {
    const port = await install('pvp1');
    // A flat world: the players stand where they spawned, near each other, instead of sliding off a slope.
    expect((await t.call('PUT', '/v1/servers/pvp1/properties', { values: { 'level-type': 'flat' } })).body.status).toBe('SUCCESS');
    await power('pvp1', 'start', 'online');
    // Fresh players each round: a player's health is saved with the player.
    const hit = async (round: number) => {
      const attacker = await join(port, `Attacker${round}`);
      const victim = await join(port, `Victim${round}`);
      // flying-squid spawns players with an entity type mineflayer does not name, so the victim is found by place.
      const target = await until(
        () => Object.values(attacker.entities).find((e) => e !== attacker.entity && e.position.distanceTo(victim.entity.position) < 3),
        (e) => e !== undefined,
      );
      if (!target) throw new Error('the victim is not in view');
      return { attacker, victim, target };
    };
    {
      const { attacker, victim, target } = await hit(1);
      // Hit again every 200 ms until it shows: the first hit may come before the game placed the victim.
      const hitting = setInterval(() => attacker.attack(target), 200);
      attacker.attack(target);
      await until(
        () => victim.health,
        (h) => h < 20,
      ).finally(() => clearInterval(hitting));
      attacker.end();
      victim.end();
    }
    await power('pvp1', 'stop', 'offline');
    const props = folder('pvp1', 'server.properties');
    writeFileSync(props, readFileSync(props, 'utf8').replace('pvp=true', 'pvp=false'));
    await power('pvp1', 'start', 'online');
    {
      const { attacker, victim, target } = await hit(2);
      for (let i = 0; i < 3; i++) attacker.attack(target);
      // The attacker's packets are handled in order: once its chat line reached the victim, the attacks were handled.
      const heard = new Promise<void>((resolve) =>
        victim.on('messagestr', (m: string) => {
          if (m.includes('after the attacks')) resolve();
        }),
      );
      attacker.chat('after the attacks');
      await heard;
      expect(victim.health).toBe(20);
    }
    await power('pvp1', 'stop', 'offline');
  });

  it('survives hostile list files: bad entries are skipped with a console line, the good ones apply', async () => {
    const port = await install('bad1');
    writeFileSync(
      folder('bad1', 'banned-players.json'),
      JSON.stringify([{ uuid: 'nope', name: 'Broken' }, { name: 'x'.repeat(40) }, 42, { uuid: offlineUuid('Villain'), name: 'Villain' }]),
    );
    writeFileSync(folder('bad1', 'ops.json'), '{"not": "a list"');
    writeFileSync(folder('bad1', 'whitelist.json'), 'x'.repeat(300 * 1024));
    const seen = await players('bad1');
    expect(seen.bans.map((b) => b.name)).toEqual(['Villain']);
    expect(seen.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('banned-players.json: entry 1 was skipped'),
        expect.stringContaining('ops.json is not valid JSON'),
        expect.stringContaining('whitelist.json'),
      ]),
    );
    await power('bad1', 'start', 'online');
    await consoleShows('bad1', 'banned-players.json: entry 3 was skipped');
    await expect(join(port, 'Villain')).rejects.toThrow('You are banned from this server.');
    await join(port, 'Someone');
    await power('bad1', 'stop', 'offline');
  });
});
