import { existsSync, readdirSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createClient, ping } from 'minecraft-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFakeJar } from '../test-support/fake-jar.ts';
import type { Agent } from './agent.ts';
import { javaServerSpec, startTestAgent, type TestAgent } from '../test-support/test-agent.ts';
import { freePort } from '../../../test-support/free-port.ts';
import { canBind } from './server/ports.ts';
import { until } from '../../../test-support/until.ts';
import { statusText } from '../../../test-support/status-text.ts';

let t: TestAgent;
let agent: Agent;
let dataDir: string;

beforeAll(async () => {
  t = await startTestAgent('agent');
  ({ agent, dataDir } = t);
});
afterAll(() => t.close());

const call = (method: string, url: string, body?: unknown, auth?: string) => t.call(method, url, body, auth);

const stateOf = (id: string) => agent.servers.get(id)?.state;
const consoleOf = (id: string) => agent.servers.get(id)?.console.lines().join('\n') ?? '';

async function install(serverId: string) {
  const port = await freePort();
  const res = await call('PUT', `/v1/servers/${serverId}`, {
    serverId,
    software: 'flying-squid',
    version: '1.21.4',
    port,
    memoryMb: 512,
    diskMb: 1024,
    maxPlayers: 5,
    motd: `Agent test ${serverId}`,
  });
  expect(res.body.status).toBe('SUCCESS');
  return port;
}

describe('the metrics page', () => {
  it('does not exist on a node without a scraper token, whatever token is sent', async () => {
    const res = await fetch(`${t.base}/metrics`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { status: string }).status).toBe('NOT_FOUND');
  });
});

describe('agent HTTP API', () => {
  it('refuses calls without the node token', async () => {
    expect((await call('GET', '/v1/servers', undefined, 'wrong')).status).toBe(401);
    expect((await call('GET', '/v1/servers', undefined, '')).status).toBe(401);
  });

  it('refuses a bad spec and unknown servers', async () => {
    expect((await call('PUT', '/v1/servers/x1', { serverId: 'x1', software: 'nope' })).body.status).toBe('INVALID_INPUT');
    expect((await call('PUT', '/v1/servers/..%2F..', { serverId: '../..' })).body.status).toBe('INVALID_INPUT');
    expect((await call('POST', '/v1/servers/unknown/power', { action: 'start' })).status).toBe(404);
  });
});

describe('built-in runtime (real flying-squid servers)', () => {
  it('starts, answers a ping with its MOTD, runs a command, and stops gracefully saving the world and players', async () => {
    const port = await install('life1');
    expect((await call('POST', '/v1/servers/life1/power', { action: 'start' })).body.status).toBe('SUCCESS');
    await until(
      () => stateOf('life1'),
      (s) => s === 'online',
    );
    const status = (await ping({ host: '127.0.0.1', port })) as { description: { text: string }; players: { max: number } };
    expect(statusText(status.description)).toBe('Agent test life1');
    expect(status.players.max).toBe(5);

    // A real client joins so there is player data to save.
    const client = createClient({ host: '127.0.0.1', port, username: 'Saver', auth: 'offline', version: '1.21.4' });
    await until(
      () => consoleOf('life1'),
      // From the node itself, through the game's own network: the address of its link (docs/security.md).
      (c) => /Saver \(\d+\.\d+\.\d+\.\d+\) connected/.test(c),
    );
    await until(
      () => agent.servers.get('life1')?.onlinePlayers() ?? [],
      (p) => p.includes('Saver'),
    );

    // Players' words reach the owner's console: a name or chat with control characters is refused, as the
    // game refuses them, before anything of it is written there.
    const oddName = createClient({ host: '127.0.0.1', port, username: 'a\nfake line', auth: 'offline', version: '1.21.4' });
    oddName.on('error', () => undefined);
    const refusedName = await new Promise<string>((resolve) =>
      oddName.once('disconnect', (packet: { reason: string }) => resolve(packet.reason)),
    );
    expect(refusedName).toContain('Invalid characters in username');
    const chatter = createClient({ host: '127.0.0.1', port, username: 'Chatter', auth: 'offline', version: '1.21.4' });
    chatter.on('error', () => undefined);
    await new Promise((resolve) => chatter.once('login', resolve));
    const gone = new Promise((resolve) => chatter.once('end', resolve));
    chatter.write('chat_message', {
      message: '\u001b[31mServer stopping\nfake line',
      timestamp: BigInt(Date.now()),
      salt: 0n,
      offset: 0,
      acknowledged: Buffer.alloc(3),
    });
    await gone;
    expect(consoleOf('life1')).not.toContain('fake line');
    expect(agent.servers.get('life1')?.onlinePlayers()).toContain('Saver');

    expect((await call('POST', '/v1/servers/life1/command', { command: 'say hello from the console' })).body.status).toBe('SUCCESS');
    await until(
      () => consoleOf('life1'),
      (c) => c.includes('[Server] hello from the console'),
    );

    expect((await call('POST', '/v1/servers/life1/power', { action: 'stop' })).body.status).toBe('SUCCESS');
    await until(
      () => stateOf('life1'),
      (s) => s === 'offline',
    );
    client.end('test over');
    const world = path.join(dataDir, 'servers/life1/world');
    expect(existsSync(path.join(world, 'level.dat'))).toBe(true);
    expect(readdirSync(path.join(world, 'region')).some((f) => f.endsWith('.mca'))).toBe(true);
    expect(readdirSync(path.join(world, 'playerdata')).some((f) => f.endsWith('.dat'))).toBe(true);
    expect(consoleOf('life1')).toContain('The server stopped.');
    expect((await call('POST', '/v1/servers/life1/command', { command: 'list' })).body.status).toBe('INVALID_STATE');
  });

  it('refuses power actions whose state precondition fails', async () => {
    await install('pre1');
    const stop = await call('POST', '/v1/servers/pre1/power', { action: 'stop' });
    expect(stop.status).toBe(409);
    expect(stop.body).toEqual({ status: 'INVALID_STATE', message: 'The server is offline.' });
    expect((await call('POST', '/v1/servers/pre1/power', { action: 'restart' })).body.status).toBe('INVALID_STATE');
    // Kill always passes.
    expect((await call('POST', '/v1/servers/pre1/power', { action: 'kill' })).body.status).toBe('SUCCESS');
    expect(stateOf('pre1')).toBe('offline');
  });

  it('leaves no game running when Kill comes while a start is still preparing it', async () => {
    const port = await install('killearly');
    expect((await call('POST', '/v1/servers/killearly/power', { action: 'start' })).body.status).toBe('SUCCESS');
    // At once: the start has been accepted and is still writing files and launching.
    expect((await call('POST', '/v1/servers/killearly/power', { action: 'kill' })).body.status).toBe('SUCCESS');
    await until(
      () => consoleOf('killearly'),
      (c) => c.includes('The start was killed before the game ran.') || c.includes('Killing the server process.'),
    );
    const procOf = () => (agent.servers.get('killearly') as unknown as { proc: unknown }).proc;
    await until(
      () => ({ state: stateOf('killearly'), proc: procOf() }),
      (v) => v.state === 'offline' && !v.proc,
    );
    // Nothing listens on its port: no game came up after the Kill.
    expect(await canBind(port, '0.0.0.0')).toBe(true);
    expect(stateOf('killearly')).toBe('offline');
  });

  it('detects a crash, restarts once, and does not restart a crash loop', async () => {
    await install('crash1');
    await call('POST', '/v1/servers/crash1/power', { action: 'start' });
    await until(
      () => stateOf('crash1'),
      (s) => s === 'online',
    );
    const pidOf = () => (agent.servers.get('crash1') as unknown as { proc: { pid: number } | null }).proc?.pid;
    const first = pidOf() as number;
    process.kill(first, 'SIGKILL');
    await until(
      () => consoleOf('crash1'),
      (c) => c.includes('The server crashed (signal SIGKILL)'),
    );
    // The console's end goes with the state, so a restart that did not happen says why.
    await until(
      () => ({ state: stateOf('crash1'), pid: pidOf(), console: consoleOf('crash1').slice(-400) }),
      (v) => v.state === 'online' && v.pid !== first,
    );
    process.kill(pidOf() as number, 'SIGKILL');
    await until(
      () => consoleOf('crash1'),
      (c) => c.includes('It crashed twice within a minute'),
    );
    expect(stateOf('crash1')).toBe('offline');
  });

  it('deletes a server and its files', async () => {
    await install('del1');
    const deleted = agent.servers.get('del1');
    expect(existsSync(path.join(dataDir, 'servers/del1/server.properties'))).toBe(true);
    expect((await call('DELETE', '/v1/servers/del1')).body.status).toBe('SUCCESS');
    expect(existsSync(path.join(dataDir, 'servers/del1'))).toBe(false);
    expect(agent.servers.has('del1')).toBe(false);
    // Work still holding the deleted server (a stats tick, a request in flight) opens nothing of it again:
    // a folder handle left to the garbage collector ends the agent on Node 26.
    await expect(deleted?.sandbox()).rejects.toThrow('This server was deleted.');
    expect(existsSync(path.join(dataDir, 'servers/del1'))).toBe(false);
  });
});

describe('power answers', () => {
  it('refuses a restart that could not start again before stopping anything, and answers refusals of queued actions', async () => {
    await install('queue1');
    await call('POST', '/v1/servers/queue1/power', { action: 'start' });
    await until(
      () => stateOf('queue1'),
      (s) => s === 'online',
    );
    // The game (not the file manager) filled the folder past its 1 GB quota: a sparse file costs no disk here.
    const filler = path.join(dataDir, 'servers/queue1/filler.bin');
    writeFileSync(filler, '');
    truncateSync(filler, 1100 * 1024 * 1024);
    const restart = await call('POST', '/v1/servers/queue1/power', { action: 'restart' });
    expect(restart.status).toBe(409);
    expect(restart.body.status).toBe('DISK_LIMIT');
    // Refused before stopping: the server is still running (it used to be stopped, then not started).
    expect(stateOf('queue1')).toBe('online');
    unlinkSync(filler);
    expect((await call('POST', '/v1/servers/queue1/power', { action: 'stop' })).body.status).toBe('SUCCESS');
    // Queued behind the stop: once it runs the server is offline, and the answer says so.
    const again = await call('POST', '/v1/servers/queue1/power', { action: 'restart' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 'INVALID_STATE', message: 'The server is offline.' });
  });
});

describe('a game port held by another program', () => {
  it('is reported by /v1/ports/bindable, and a start there fails at once with a clear message', async () => {
    const port = await install('busy1');
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '0.0.0.0', resolve));
    try {
      const free = await freePort();
      const answer = await call('POST', '/v1/ports/bindable', { ports: [port, free] });
      expect(answer.body.result).toEqual({ bindable: [free] });
      await call('POST', '/v1/servers/busy1/power', { action: 'start' });
      await until(
        () => consoleOf('busy1'),
        (c) => c.includes(`Port ${port} is used by another program on this machine`),
      );
      expect(stateOf('busy1')).toBe('offline');
    } finally {
      squatter.close();
    }
  });
});

describe('java-jar runtime (a jar the test compiles)', () => {
  it('does not start a Java server whose owner has not accepted the Minecraft EULA, and writes no eula.txt', async () => {
    buildFakeJar(path.join(dataDir, 'software/paper/1.20.4.jar'));
    const spec = await javaServerSpec('noeula', 'paper', false);
    expect((await call('PUT', '/v1/servers/noeula', spec)).body.status).toBe('SUCCESS');
    await call('POST', '/v1/servers/noeula/power', { action: 'start' });
    await until(
      () => consoleOf('noeula'),
      (c) => c.includes('The Minecraft EULA (https://aka.ms/MinecraftEULA) has not been accepted for this server.'),
    );
    expect(stateOf('noeula')).toBe('offline');
    expect(existsSync(path.join(dataDir, 'servers/noeula/eula.txt'))).toBe(false);
  });

  it("rewrites a Java server's server.properties in one form, so Java reads the settings the agent checked", async () => {
    buildFakeJar(path.join(dataDir, 'software/paper/1.20.4.jar'));
    const spec = await javaServerSpec('jarprops', 'paper');
    expect((await call('PUT', '/v1/servers/jarprops', spec)).body.status).toBe('SUCCESS');
    // Forms Java's reader takes and ours does not: key:value, key value, a continuation, a second port.
    const file = path.join(dataDir, 'servers/jarprops/server.properties');
    writeFileSync(
      file,
      [
        'level-name:../other-server/world',
        'level-type escape',
        'motd=hello\\',
        'max-players=100',
        'server-port=1',
        'server-port=2',
        'white-list=true',
        '',
      ].join('\n'),
    );
    expect((await call('PUT', '/v1/servers/jarprops', spec)).body.status).toBe('SUCCESS');
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(lines).toEqual(['motd=hello\\\\', 'max-players=5', `server-port=${spec.port}`, 'white-list=true']);
  });

  it('installs from the software cache, detects readiness, runs commands and stops', async () => {
    buildFakeJar(path.join(dataDir, 'software/paper/1.20.4.jar'));
    const spec = await javaServerSpec('jar1', 'paper');
    const { port } = spec;
    const res = await call('PUT', '/v1/servers/jar1', spec);
    expect(res.body.status).toBe('SUCCESS');
    // The jar runs from the node's cache by absolute path; no copy the tenant could replace.
    expect(existsSync(path.join(dataDir, 'servers/jar1/server.jar'))).toBe(false);
    expect(readFileSync(path.join(dataDir, 'servers/jar1/server.properties'), 'utf8')).toContain(`server-port=${port}`);
    expect(readFileSync(path.join(dataDir, 'servers/jar1/eula.txt'), 'utf8')).toMatch(/^eula=true$/m);
    await call('POST', '/v1/servers/jar1/power', { action: 'start' });
    await until(
      () => stateOf('jar1'),
      (s) => s === 'online',
    );
    await call('POST', '/v1/servers/jar1/command', { command: 'say hi from java' });
    await until(
      () => consoleOf('jar1'),
      (c) => c.includes('[Server] hi from java'),
    );
    await call('POST', '/v1/servers/jar1/power', { action: 'stop' });
    await until(
      () => stateOf('jar1'),
      (s) => s === 'offline',
    );
    expect(consoleOf('jar1')).toContain('Stopping server');
  });
});
