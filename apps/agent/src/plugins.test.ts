import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { agentPluginsResult, type AgentPluginsResult } from '@spawnpoint/contracts';
import mineflayer, { type Bot } from 'mineflayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { installBuiltin, startTestAgent, type TestAgent } from '../test-support/test-agent.ts';

let t: TestAgent;
const bots: Bot[] = [];

beforeAll(async () => {
  t = await startTestAgent('plugins');
});
afterAll(async () => {
  for (const bot of bots) bot.end();
  await t.close();
});

const stateOf = (id: string) => t.agent.servers.get(id)?.state;
const consoleOf = (id: string) => t.agent.servers.get(id)?.console.lines().join('\n') ?? '';
const folder = (id: string, ...parts: string[]) => path.join(t.dataDir, 'servers', id, ...parts);

async function install(serverId: string): Promise<number> {
  const port = await installBuiltin(t, serverId, { motd: 'Plugins test' });
  // A flat world: players walk and land where the test sends them.
  expect((await t.call('PUT', `/v1/servers/${serverId}/properties`, { values: { 'level-type': 'flat' } })).body.status).toBe('SUCCESS');
  return port;
}

async function power(serverId: string, action: 'start' | 'stop' | 'restart', until_: 'online' | 'offline') {
  expect((await t.call('POST', `/v1/servers/${serverId}/power`, { action })).body.status).toBe('SUCCESS');
  await until(
    () => stateOf(serverId),
    (s) => s === until_,
    60_000,
  );
}

async function change(serverId: string, body: unknown): Promise<AgentPluginsResult> {
  const res = await t.call('POST', `/v1/servers/${serverId}/plugins`, body);
  expect(res.body.status, res.body.message).toBe('SUCCESS');
  return agentPluginsResult.parse(res.body.result);
}

/** A real client that keeps every chat line it is shown. */
async function join(port: number, username: string): Promise<Bot & { heard: string[] }> {
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, auth: 'offline', version: '1.21.4' }) as Bot & { heard: string[] };
  bots.push(bot);
  bot.heard = [];
  bot.on('messagestr', (line: string) => {
    bot.heard.push(line);
  });
  await new Promise<void>((resolve, reject) => {
    bot.once('spawn', () => resolve());
    bot.once('kicked', (reason: unknown) => reject(new Error(`kicked: ${JSON.stringify(reason)}`)));
    bot.once('error', reject);
  });
  return bot;
}
const hears = (bot: Bot & { heard: string[] }, text: string) =>
  until(
    () => bot.heard.join('\n'),
    (h) => h.includes(text),
  );
const horizontal = (bot: Bot, x: number, z: number) => Math.hypot(bot.entity.position.x - x, bot.entity.position.z - z);
const arrivesNear = (bot: Bot, x: number, z: number) =>
  until(
    () => horizontal(bot, x, z),
    (d) => d < 1.5,
  );

describe('first-party plugins in game (real flying-squid, real clients)', () => {
  it('welcome, homes, tpa, kits, timed broadcasts and spawn each work with their settings', async () => {
    const port = await install('pl1');
    for (const id of ['welcome', 'homes', 'tpa', 'kits', 'broadcasts', 'spawn']) await change('pl1', { action: 'install', id });
    await change('pl1', {
      action: 'settings',
      id: 'welcome',
      settings: { message: '&aHello {player}, have fun!', announce: '&7{player} is here.' },
    });
    await change('pl1', { action: 'settings', id: 'broadcasts', settings: { messages: ['&6Vote for us!'], intervalSeconds: 10 } });
    const listed = await change('pl1', {
      action: 'settings',
      id: 'kits',
      settings: { kits: ['fighter: stone_sword 1, bread 4'], cooldownMinutes: 5 },
    });
    expect(listed.plugins.map((p) => [p.id, p.enabled, p.version])).toEqual([
      ['welcome', true, '1.0.0'],
      ['homes', true, '1.0.0'],
      ['tpa', true, '1.0.0'],
      ['kits', true, '1.0.0'],
      ['broadcasts', true, '1.0.0'],
      ['spawn', true, '1.0.0'],
    ]);
    // Defaults fill what was not sent.
    expect(listed.plugins.find((p) => p.id === 'homes')?.settings).toEqual({ maxHomes: 3 });

    await power('pl1', 'start', 'online');
    expect(consoleOf('pl1')).toContain('Plugin homes loaded.');

    // Welcome: the player is greeted, and the others told.
    const alice = await join(port, 'Alice');
    await hears(alice, 'Hello Alice, have fun!');
    const bob = await join(port, 'Bob');
    await hears(bob, 'Hello Bob, have fun!');
    await hears(alice, 'Bob is here.');
    // Coloured as the codes say, not shown as "&a" (1.21.4 takes chat as NBT components) — flying-squid's
    // own lines too, which it writes with "&e".
    expect(alice.heard).toContain('Hello Alice, have fun!');
    await hears(alice, 'Bob joined the game.');
    expect(alice.heard.join('\n')).not.toMatch(/&[0-9a-fk-or]/);

    // Homes: saved where Alice stands, and back there after going elsewhere (with the operator's /tp).
    expect((await t.call('POST', '/v1/servers/pl1/command', { command: 'op Alice' })).body.status).toBe('SUCCESS');
    await until(
      () => consoleOf('pl1'),
      (c) => /Opped Alice|Made Alice a server operator/i.test(c),
    );
    alice.chat('/tp 40 ~ 40');
    await arrivesNear(alice, 40.5, 40.5);
    alice.chat('/sethome base');
    await hears(alice, 'Home base saved.');
    alice.chat('/tp 10 ~ 10');
    await arrivesNear(alice, 10.5, 10.5);
    alice.chat('/home base');
    await arrivesNear(alice, 40.5, 40.5);
    await hears(alice, 'Welcome home (base).');
    alice.chat('/home nowhere');
    await hears(alice, 'You have no home called nowhere.');
    // Kept in the server folder, so they outlive a restart.
    await until(
      () => existsSync(folder('pl1', 'plugins', 'homes', 'homes.json')),
      (e) => e,
    );

    // Teleport requests: Bob asks, Alice accepts, Bob lands at Alice.
    bob.chat('/tpa Alice');
    await hears(alice, 'Bob asks to teleport to you.');
    alice.chat('/tpaccept');
    await arrivesNear(bob, 40.5, 40.5);
    await hears(bob, 'Alice accepted: teleported.');
    alice.chat('/tpaccept');
    await hears(alice, 'Nobody asked to teleport to you');

    // Kits: the items arrive in the inventory; a second take waits for the cooldown.
    bob.chat('/kit fighter');
    await until(
      () => bob.inventory.items().map((i) => `${i.name}×${i.count}`),
      (items) => items.includes('stone_sword×1') && items.includes('bread×4'),
    );
    await hears(bob, 'You took the fighter kit.');
    bob.chat('/kit fighter');
    await hears(bob, 'You can take the fighter kit again in 5 min.');

    // Spawn: an operator sets it where she stands; Bob goes there with /spawn. Not operators: refused.
    alice.chat('/tp 25 ~ 30');
    await arrivesNear(alice, 25.5, 30.5);
    alice.chat('/setspawn');
    await hears(alice, 'The spawn is now at 25');
    bob.chat('/spawn');
    await arrivesNear(bob, 25.5, 30.5);
    bob.chat('/setspawn');
    await hears(bob, 'You do not have permission');

    // Timed broadcasts, every 10 s here.
    await hears(bob, 'Vote for us!');

    // A change while the game runs needs a restart, and says so.
    const disabled = await change('pl1', { action: 'disable', id: 'welcome' });
    expect(disabled.restartNeeded).toBe(true);
    alice.end();
    bob.end();
    await power('pl1', 'restart', 'online');
    const after = agentPluginsResult.parse((await t.call('GET', '/v1/servers/pl1/plugins')).body.result);
    expect(after.restartNeeded).toBe(false);
    const carol = await join(port, 'Carol');
    // The spawn set before the restart holds for a new player; the welcome plugin is off now.
    await arrivesNear(carol, 25.5, 30.5);
    carol.chat('/homes');
    await hears(carol, 'You have no homes yet.');
    expect(carol.heard.join('\n')).not.toContain('have fun');
    await power('pl1', 'stop', 'offline');
  });

  it("runs the owner's own .js plugin inside the cage, and refuses what is not one", async () => {
    const port = await install('pl2');
    const code = `module.exports.server = function (serv) {
  serv.commands.add({ base: 'hello', info: 'Say hello', usage: '/hello', onlyPlayer: true,
    action (params, ctx) { ctx.player.chat('Hello from my own plugin, ' + ctx.player.username) } })
}
`;
    const upload = (fileName: string, content: Buffer) =>
      t.call('POST', '/v1/servers/pl2/plugins/upload', { fileName, content: content.toString('base64') });
    const res = await upload('hello.js', Buffer.from(code));
    expect(res.body.status, res.body.message).toBe('SUCCESS');
    const result = agentPluginsResult.parse(res.body.result);
    expect(result.uploadsAllowed).toBe(true);
    expect(result.plugins).toEqual([expect.objectContaining({ id: 'hello.js', source: 'upload', file: 'hello.js', enabled: true })]);
    expect(readFileSync(folder('pl2', 'plugins', 'hello.js'), 'utf8')).toBe(code);

    // An executable renamed to .js, a path for a name, an empty file: refused, nothing written.
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(64)]);
    expect((await upload('evil.js', elf)).body).toMatchObject({ status: 'INVALID_INPUT', message: expect.stringContaining('binary') });
    expect((await upload('../escape.js', Buffer.from(code))).body.status).toBe('INVALID_INPUT');
    expect((await upload('empty.js', Buffer.alloc(0))).body.status).toBe('INVALID_INPUT');
    expect(existsSync(folder('pl2', 'plugins', 'evil.js'))).toBe(false);
    expect(existsSync(folder('pl2', 'plugins', 'empty.js'))).toBe(false);

    // The same plugin twice, and one that is not in the catalogue.
    await change('pl2', { action: 'install', id: 'spawn' });
    expect((await t.call('POST', '/v1/servers/pl2/plugins', { action: 'install', id: 'spawn' })).body.status).toBe('INVALID_STATE');
    expect((await t.call('POST', '/v1/servers/pl2/plugins', { action: 'install', id: 'nope' })).body.status).toBe('INVALID_INPUT');

    await power('pl2', 'start', 'online');
    const dave = await join(port, 'Dave');
    dave.chat('/hello');
    await hears(dave, 'Hello from my own plugin, Dave');
    dave.end();
    await power('pl2', 'stop', 'offline');

    // Removed: the record and the file go.
    const removed = await change('pl2', { action: 'remove', id: 'hello.js' });
    expect(removed.plugins.map((p) => p.id)).toEqual(['spawn']);
    expect(existsSync(folder('pl2', 'plugins', 'hello.js'))).toBe(false);
  });

  it('refuses to start on a plugin record written by hand that does not hold, and says how to fix it', async () => {
    await install('pl3');
    await change('pl3', { action: 'install', id: 'homes' });
    const file = folder('pl3', 'plugins', 'spawnpoint-plugins.json');
    const record = JSON.parse(readFileSync(file, 'utf8')) as { plugins: { id: string }[] };
    // Game code or the file editor can write anything there: a path smuggled in as an uploaded plugin.
    record.plugins.push({ ...record.plugins[0]!, id: '../../../etc/passwd', source: 'upload', file: '../../../etc/passwd' } as never);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, JSON.stringify(record));
    await t.call('POST', '/v1/servers/pl3/power', { action: 'start' });
    await until(
      () => consoleOf('pl3'),
      (c) => c.includes('Not started: plugins/spawnpoint-plugins.json is not a plugin record'),
    );
    expect(stateOf('pl3')).toBe('offline');
    expect((await t.call('GET', '/v1/servers/pl3/plugins')).body).toMatchObject({
      status: 'INVALID_STATE',
      message: expect.stringContaining('Delete it in the file manager'),
    });
  });
});
