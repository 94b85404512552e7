import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { availableParallelism } from 'node:os';
import path from 'node:path';
import { ping } from 'minecraft-protocol';
import mineflayer, { type Bot } from 'mineflayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test-support/free-port.ts';
import { until } from '../../../../test-support/until.ts';
import { pluginRuntime } from '../../test-support/plugin-runtime.ts';
import { startTestAgent, type TestAgent } from '../../test-support/test-agent.ts';
import { CAGE_OPEN_FILES } from './cage.ts';
import { GAME_PIDS_MAX, groupName } from './cgroups.ts';

/**
 * The cage attacked from inside: every server here loads `plugin.mjs` from its own folder into the game
 * process (test-support/plugin-runtime.ts), which is where tenant code runs (a Paper plugin, a crafted
 * world read by a buggy game). Each plugin below does what hostile code would and prints what it got.
 * Needs bubblewrap and writable cgroups (CI installs bubblewrap; the tests fail, never skip, without).
 */
let t: TestAgent;
const bots: Bot[] = [];

beforeAll(async () => {
  t = await startTestAgent('cage', { runtimes: { 'flying-squid': pluginRuntime } });
});
afterAll(async () => {
  for (const bot of bots) bot.end();
  await t.close();
});

const stateOf = (id: string, on = t) => on.agent.servers.get(id)?.state;
const consoleOf = (id: string, on = t) => on.agent.servers.get(id)?.console.lines().join('\n') ?? '';
const folder = (id: string) => path.join(t.dataDir, 'servers', id);

/** Writes a file the way the file manager does. */
async function put(serverId: string, file: string, content: string, on = t) {
  expect((await write(serverId, file, content, on)).status).toBe('SUCCESS');
}

async function write(serverId: string, file: string, content: string, on = t) {
  const response = await fetch(`${on.base}/v1/servers/${serverId}/files/write?path=${encodeURIComponent(file)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${on.token}`, 'content-type': 'application/octet-stream' },
    body: Buffer.from(content),
  });
  return (await response.json()) as { status: string; message?: string };
}

async function install(
  serverId: string,
  plugin: string,
  { memoryMb = 512, diskMb = 1024, on = t }: { memoryMb?: number; diskMb?: number; on?: TestAgent } = {},
): Promise<number> {
  const port = await freePort();
  const res = await on.call('PUT', `/v1/servers/${serverId}`, {
    serverId,
    software: 'flying-squid',
    version: '1.21.4',
    port,
    memoryMb,
    diskMb,
    maxPlayers: 5,
    motd: `Cage ${serverId}`,
  });
  expect(res.body.status).toBe('SUCCESS');
  await put(serverId, 'plugin.mjs', plugin, on);
  return port;
}

/** Waits until the server is offline (it stopped, or was stopped for a limit). */
const offline = (serverId: string, on = t) =>
  until(
    () => stateOf(serverId, on),
    (s) => s === 'offline',
  );

async function start(serverId: string, on = t) {
  expect((await on.call('POST', `/v1/servers/${serverId}/power`, { action: 'start' })).body.status).toBe('SUCCESS');
  await until(
    () => stateOf(serverId, on),
    (s) => s === 'online',
  );
}

/** The game's pid on the node, from the agent's process record. */
const gamePid = (id: string) => (JSON.parse(readFileSync(path.join(t.dataDir, 'run', id, 'process.json'), 'utf8')) as { pid: number }).pid;

/** A server's v1 cgroup folder for `controller` (the agent's own group in that hierarchy, then ours). */
function cgroupDir(controller: string, serverId: string): string {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes(controller));
  const own = line ? line.split(':').slice(2).join(':') : '/';
  return path.join('/sys/fs/cgroup', controller, own, groupName(t.dataDir), serverId);
}

async function joinBot(port: number, username: string): Promise<Bot> {
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, auth: 'offline', version: '1.21.4' });
  bots.push(bot);
  return new Promise((resolve, reject) => {
    bot.once('spawn', () => resolve(bot));
    bot.once('kicked', (reason: unknown) => reject(new Error(`kicked: ${JSON.stringify(reason)}`)));
    bot.once('error', reject);
  });
}

/** A plugin that waits for `file` to appear in its folder (written through the file manager), then runs `body`. */
const onFile = (file: string, body: string) => `
import fs from 'node:fs';
import { spawn } from 'node:child_process';
const timer = setInterval(() => {
  if (!fs.existsSync(${JSON.stringify(file)})) return;
  clearInterval(timer);
  ${body}
}, 100);
`;

describe('the cage', () => {
  it('is on: bubblewrap with cgroup limits (install bubblewrap if this fails)', () => {
    expect(t.agent.cage.refusal).toBeNull();
    expect(t.agent.cage.mode).toBe('caged');
    expect(t.agent.cage.summary).toMatch(/cgroup v[12] limits/);
  });

  it('keeps tenant code from other servers, DATA_DIR, the agent and the node, and the game still plays', async () => {
    // What an attacker would go for, at the paths it would guess or learn (they are not secret).
    await install('victim', '');
    writeFileSync(path.join(folder('victim'), 'secret.txt'), 'the victim world');
    writeFileSync(path.join(t.dataDir, 'app-secret'), 'the app secret');
    const launcher = path.resolve(import.meta.dirname, '../../dist/flying-squid-launcher.mjs');
    const hostTmpMarker = `/tmp/spawnpoint-cage-escape-${process.pid}`;
    const plugin = `
import fs from 'node:fs';
import v8 from 'node:v8';
const read = (p) => { try { return 'READ ' + fs.readFileSync(p, 'utf8').slice(0, 300); } catch (e) { return 'refused ' + e.code; } };
const write = (p) => { try { fs.writeFileSync(p, 'escaped'); return 'WROTE'; } catch (e) { return 'refused ' + e.code; } };
const pids = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n));
// Its memory group as the cage shows it: cgroup v1's memory folder, or v2's one folder.
const v1 = fs.existsSync('/sys/fs/cgroup/memory/memory.limit_in_bytes');
const limitFile = v1 ? '/sys/fs/cgroup/memory/memory.limit_in_bytes' : '/sys/fs/cgroup/memory.max';
const procsFile = v1 ? '/sys/fs/cgroup/memory/cgroup.procs' : '/sys/fs/cgroup/cgroup.procs';
const report = {
  uid: process.getuid(),
  sibling: read(${JSON.stringify(path.join(folder('victim'), 'secret.txt'))}),
  siblingRelative: read('../victim/secret.txt'),
  appSecret: read(${JSON.stringify(path.join(t.dataDir, 'app-secret'))}),
  agentEnviron: read('/proc/${process.pid}/environ'),
  agentCmdline: read('/proc/${process.pid}/cmdline'),
  dataDirListing: (() => { try { return fs.readdirSync(${JSON.stringify(t.dataDir)}); } catch (e) { return 'refused ' + e.code; } })(),
  env: process.env,
  processes: pids.map((p) => read('/proc/' + p + '/cmdline')),
  writeDataDir: write(${JSON.stringify(path.join(t.dataDir, 'escaped'))}),
  writeSibling: write(${JSON.stringify(path.join(folder('victim'), 'escaped'))}),
  writeParent: write('../escaped'),
  writeRoot: write('/escaped'),
  writeUsr: write('/usr/escaped'),
  writeLauncher: write(${JSON.stringify(launcher)}),
  writeTmp: write(${JSON.stringify(hostTmpMarker)}),
  writeOwn: write('own-file.txt'),
  ownLimit: read(limitFile),
  writeOwnLimit: write(limitFile),
  joinOtherGroup: write(procsFile),
  heapLimitMb: v8.getHeapStatistics().heap_size_limit / 1048576,
};
console.log('ESCAPE ' + JSON.stringify(report));
`;
    const port = await install('attacker', plugin);
    await start('attacker');
    const line = await until(
      () => consoleOf('attacker'),
      (c) => c.includes('ESCAPE '),
    );
    const report = JSON.parse(line.slice(line.indexOf('ESCAPE ') + 7).split('\n')[0] as string) as Record<string, unknown> & {
      env: Record<string, string>;
      processes: string[];
    };

    // Another tenant's world, the node's secrets and the agent itself are out of sight.
    expect(report.sibling).toBe('refused ENOENT');
    expect(report.siblingRelative).toBe('refused ENOENT');
    expect(report.appSecret).toBe('refused ENOENT');
    expect(report.dataDirListing).toBe('refused ENOENT');
    expect(report.agentEnviron).toBe('refused ENOENT');
    expect(report.agentCmdline).toBe('refused ENOENT');
    expect(JSON.stringify(report)).not.toContain(t.token);
    expect(JSON.stringify(report)).not.toContain('the victim world');
    expect(JSON.stringify(report)).not.toContain('the app secret');
    // Its environment is the game's own.
    expect(Object.keys(report.env).sort()).toEqual(['FORCE_COLOR', 'HOME', 'PATH', 'PWD', 'SPAWNPOINT_SETTINGS']);
    // /proc shows its own process and nothing of the node's (no agent, no test runner, no other game).
    expect(report.processes).toHaveLength(1);
    expect(report.processes[0]).toContain('flying-squid-launcher.mjs');
    // It writes its own folder and its private /tmp, nothing else.
    expect(report.writeOwn).toBe('WROTE');
    expect(report.writeTmp).toBe('WROTE');
    expect(existsSync(hostTmpMarker)).toBe(false);
    for (const key of ['writeDataDir', 'writeSibling', 'writeRoot', 'writeUsr', 'writeLauncher'])
      expect(report[key], key).toMatch(/^refused (ENOENT|EROFS|EACCES)$/);
    // Its own group's files are there to read (v1 or v2 alike: the probe is not refused for want of a path),
    // and neither its limit nor the group's membership can be written.
    expect(report.ownLimit).toMatch(new RegExp(`^READ ${512 * 1024 * 1024}\\s*$`));
    for (const key of ['writeOwnLimit', 'joinOtherGroup']) expect(report[key], key).toMatch(/^refused (EROFS|EACCES|EPERM)$/);
    expect(existsSync(path.join(t.dataDir, 'escaped'))).toBe(false);
    expect(existsSync(path.join(folder('victim'), 'escaped'))).toBe(false);
    expect(existsSync(path.join(t.dataDir, 'servers', 'escaped'))).toBe(false);

    // It runs as the unprivileged game user, not as the agent's root.
    expect(report.uid).not.toBe(0);
    const status = readFileSync(`/proc/${gamePid('attacker')}/status`, 'utf8');
    expect(status).toMatch(new RegExp(`^Uid:\\t${String(report.uid)}\\t`, 'm'));
    expect(status).toMatch(/^CapEff:\t0+$/m);
    // It may hold a few thousand open files and sockets, not the node's limit (it shares the node's network:
    // binding every local port would leave the agent, the proxy and every other game none), and cannot raise it.
    expect(readFileSync(`/proc/${gamePid('attacker')}/limits`, 'utf8')).toMatch(
      new RegExp(`^Max open files\\s+${CAGE_OPEN_FILES}\\s+${CAGE_OPEN_FILES}\\s`, 'm'),
    );
    // The agent still reads what the game wrote, and the file manager still writes there.
    expect(readFileSync(path.join(folder('attacker'), 'own-file.txt'), 'utf8')).toBe('escaped');
    await put('attacker', 'from-the-file-manager.txt', 'hello');

    // In its cgroup with the plan's limits.
    expect(readFileSync(path.join(cgroupDir('memory', 'attacker'), 'memory.limit_in_bytes'), 'utf8').trim()).toBe(
      String(512 * 1024 * 1024),
    );
    expect(readFileSync(path.join(cgroupDir('pids', 'attacker'), 'pids.max'), 'utf8').trim()).toBe(String(GAME_PIDS_MAX));
    // Node sized the game's heap from that limit (the cage shows it its own group, read-only), not from the
    // node's memory: no V8 flag needed, which would cost every start Node's built-in code cache.
    expect(report.heapLimitMb).toBeGreaterThan(512 * 0.3);
    expect(report.heapLimitMb).toBeLessThan(512 * 0.9);
    expect(readFileSync(path.join(cgroupDir('pids', 'attacker'), 'cgroup.procs'), 'utf8')).toContain(String(gamePid('attacker')));

    // And the game is a game: players join it on its port, and its console takes commands.
    const bot = await joinBot(port, 'Steve');
    const heard = new Promise<string>((resolve) =>
      bot.on('messagestr', (m: string) => {
        if (m.includes('caged hello')) resolve(m);
      }),
    );
    expect((await t.call('POST', '/v1/servers/attacker/command', { command: 'say caged hello' })).body.status).toBe('SUCCESS');
    expect(await heard).toContain('caged hello');
    expect((await ping({ host: '127.0.0.1', port })) as { description: unknown }).toBeTruthy();
  });

  it('holds a fork bomb at the process limit while the node and its other servers carry on', async () => {
    const calmPort = await install('calm', '');
    await start('calm');
    const bot = await joinBot(calmPort, 'Alex');
    await install('bomb', onFile('bomb.now', `spawn('/bin/sh', ['-c', 'b() { b | b & }; b'], { detached: true, stdio: 'ignore' });`));
    await start('bomb');
    await put('bomb', 'bomb.now', 'go');

    // The bomb reaches the limit and the kernel refuses its next forks.
    const events = path.join(cgroupDir('pids', 'bomb'), 'pids.events');
    await until(
      () => readFileSync(events, 'utf8'),
      (e) => Number(/^max (\d+)/m.exec(e)?.[1] ?? 0) > 0,
    );
    expect(Number(readFileSync(path.join(cgroupDir('pids', 'bomb'), 'pids.current'), 'utf8'))).toBeLessThanOrEqual(GAME_PIDS_MAX);
    // All games of the node together weigh one default CPU share per core against the node's own tasks.
    expect(readFileSync(path.join(path.dirname(cgroupDir('cpu', 'bomb')), 'cpu.shares'), 'utf8').trim()).toBe(
      String(1024 * availableParallelism()),
    );

    // Meanwhile the agent answers, and a player on the other server still plays.
    expect((await t.call('GET', '/v1/servers')).body.status).toBe('SUCCESS');
    const heard = new Promise<string>((resolve) =>
      bot.on('messagestr', (m: string) => {
        if (m.includes('still here')) resolve(m);
      }),
    );
    expect((await t.call('POST', '/v1/servers/calm/command', { command: 'say still here' })).body.status).toBe('SUCCESS');
    expect(await heard).toContain('still here');
    expect(stateOf('calm')).toBe('online');

    // Killing the server ends every process of the bomb, and its group goes.
    expect((await t.call('POST', '/v1/servers/bomb/power', { action: 'kill' })).body.status).toBe('SUCCESS');
    await offline('bomb');
    await until(
      () => existsSync(cgroupDir('pids', 'bomb')),
      (present) => !present,
    );
  });

  it("shows the memory and CPU of the server's whole group, a child process of its plugin included", async () => {
    // The plugin starts a helper that holds 200 MiB and keeps one core busy: the game's own process has
    // neither, so only figures read from the server's control group show them.
    const helper = `const b = Buffer.alloc(200 * 1024 * 1024, 1); for (;;) b[0]++;`;
    await install('busy', onFile('busy.now', `spawn(process.execPath, ['-e', ${JSON.stringify(helper)}], { stdio: 'ignore' });`));
    await start('busy');
    await put('busy', 'busy.now', 'go');
    const stats = await until(
      () => t.agent.servers.get('busy')?.latestStats(),
      (s) => !!s && s.memory > 200 * 1024 * 1024 && s.cpu > 30,
    );
    const ownRss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${gamePid('busy')}/status`, 'utf8'))?.[1]) * 1024;
    expect(ownRss).toBeLessThan(200 * 1024 * 1024);
    expect(stats?.memory).toBeGreaterThan(ownRss + 150 * 1024 * 1024);
    expect((await t.call('POST', '/v1/servers/busy/power', { action: 'kill' })).body.status).toBe('SUCCESS');
    await offline('busy');
  });

  it('stops a server that uses more memory than its plan: "out of memory", offline, not restarted', async () => {
    await install('hog', onFile('hog.now', `const keep = []; for (;;) keep.push(Buffer.alloc(16 * 1024 * 1024, 1));`), { memoryMb: 384 });
    await start('hog');
    await put('hog', 'hog.now', 'go');
    await offline('hog');
    const text = consoleOf('hog');
    expect(text).toContain('The server stopped: out of memory (it reached its limit of 384 MB');
    expect(text).not.toContain('crashed');
    expect(text).not.toContain('Restarting it automatically');
    expect(existsSync(path.join(t.dataDir, 'run', 'hog', 'process.json'))).toBe(false);
  });

  it('stops a server whose game writes past its disk quota while running, says why, and keeps it stopped', async () => {
    const port = await freePort();
    const spec = {
      serverId: 'filler',
      software: 'flying-squid',
      version: '1.21.4',
      port,
      memoryMb: 512,
      diskMb: 64,
      maxPlayers: 5,
      motd: 'filler',
    };
    expect((await t.call('PUT', '/v1/servers/filler', spec)).body.status).toBe('SUCCESS');
    // A sparse file of 100 MB: few blocks, but it counts at its size (it could be filled in place at any time).
    await put(
      'filler',
      'plugin.mjs',
      onFile('fill.now', `fs.writeFileSync('big.bin', ''); fs.truncateSync('big.bin', 100 * 1024 * 1024);`),
    );
    await start('filler');
    await put('filler', 'fill.now', 'go');
    await offline('filler');
    expect(consoleOf('filler')).toMatch(/The server was stopped: its folder uses 1\d\d MB, more than its disk limit of 64 MB/);
    expect(consoleOf('filler')).not.toContain('Restarting it automatically');
    // A start is refused until space is freed.
    const again = await t.call('POST', '/v1/servers/filler/power', { action: 'start' });
    expect(again.body.status).toBe('DISK_LIMIT');
  });

  it('counts a file the game deleted but keeps open against its quota', async () => {
    // Out of every folder, still on the disk: 100 MB (sparse, so it costs the test nothing) in a 64 MB quota.
    const hide = `const fd = fs.openSync('hidden.bin', 'w'); fs.ftruncateSync(fd, 100 * 1024 * 1024); fs.unlinkSync('hidden.bin'); globalThis.kept = fd;`;
    await install('hider', onFile('hide.now', hide), { diskMb: 64 });
    await start('hider');
    await put('hider', 'hide.now', 'go');
    await offline('hider');
    expect(consoleOf('hider')).toMatch(/The server was stopped: its folder uses 1\d\d MB, more than its disk limit of 64 MB/);
  });
});

describe("the node's disk reserve", () => {
  // DATA_DIR on a disk of its own, small enough to fill: 160 MB, of which 100 MB are the node's reserve.
  const disk = path.join(os.tmpdir(), `spawnpoint-reserve-${process.pid}`);
  let r: TestAgent;
  beforeAll(async () => {
    mkdirSync(disk, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', disk]);
    r = await startTestAgent('reserve', { runtimes: { 'flying-squid': pluginRuntime } }, { DATA_DIR: disk, DISK_RESERVE_MB: '100' });
  });
  afterAll(async () => {
    await r?.close();
    // Lazily: the agent's handles of server folders close with this process.
    execFileSync('umount', ['--lazy', disk]);
    rmSync(disk, { recursive: true, force: true });
  });

  it('stops a game that writes into it, refuses starts and uploads, and starts again once space is freed', async () => {
    // 80 MB of real data, within the server's own 1 GB quota but past the node's 60 MB of room.
    const fill = `for (let i = 0; i < 10; i++) fs.appendFileSync('fill.bin', Buffer.alloc(8 * 1024 * 1024, 1));`;
    await install('greedy', onFile('fill.now', fill), { on: r });
    await start('greedy', r);
    await put('greedy', 'fill.now', 'go', r);
    await offline('greedy', r);
    expect(consoleOf('greedy', r)).toMatch(/The server was stopped: it was writing to the disk: this node is nearly out of disk space/);
    const refusedStart = await r.call('POST', '/v1/servers/greedy/power', { action: 'start' });
    expect(refusedStart.body).toMatchObject({
      status: 'DISK_LIMIT',
      message: expect.stringMatching(/^The server cannot start: this node is nearly out of disk space/),
    });
    const refusedWrite = await write('greedy', 'more.txt', 'x'.repeat(1024 * 1024), r);
    expect(refusedWrite).toMatchObject({ status: 'DISK_LIMIT', message: expect.stringMatching(/nearly out of disk space/) });
    // The owner deletes the file: the node has room again and the server starts.
    const removed = await r.call('POST', '/v1/servers/greedy/files/delete', { paths: ['fill.bin', 'fill.now'] });
    expect(removed.body.status).toBe('SUCCESS');
    await start('greedy', r);
  });
});
