import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from './agent.ts';
import { startTestAgent, type TestAgent } from '../test-support/test-agent.ts';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';

/**
 * The attack suite at the node: what a hostile tenant can do with its own server's folder (every byte of
 * it, through the file manager or from game code) and the agent's API as the control plane calls it. Each
 * case was a working attack once; each must stay refused. (The sandbox's own escape cases are in
 * sandbox.test.ts; the API's in apps/api.)
 */
let agent: Agent;
let t: TestAgent;
let dataDir: string;
let outside: string;
let base: string;
let token: string;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  t = await startTestAgent('attacks');
  ({ agent, dataDir, base, token } = t);
  outside = path.join(dataDir, 'outside');
  mkdirSync(outside);
});
afterAll(async () => {
  await t.close();
  process.off('unhandledRejection', onUnhandled);
});
afterEach(() => {
  // No request may leave a promise failing with nobody waiting (that ended the agent before).
  expect(unhandled).toEqual([]);
});

const call = (method: string, url: string, body?: unknown) => t.call(method, url, body);

/** Writes a file the way the file manager does (the control plane's PUT …/files/write). */
async function put(serverId: string, file: string, content: string | Buffer) {
  const response = await fetch(`${base}/v1/servers/${serverId}/files/write?path=${encodeURIComponent(file)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: typeof content === 'string' ? Buffer.from(content) : content,
  });
  return { status: response.status, body: (await response.json()) as { status: string; message?: string } };
}

async function install(serverId: string, diskMb = 64) {
  const res = await call('PUT', `/v1/servers/${serverId}`, {
    serverId,
    software: 'flying-squid',
    version: '1.21.4',
    port: await freePort(),
    memoryMb: 512,
    diskMb,
    maxPlayers: 5,
    motd: `Attack ${serverId}`,
  });
  expect(res.body.status).toBe('SUCCESS');
  return path.join(dataDir, 'servers', serverId);
}

const stateOf = (id: string) => agent.servers.get(id)?.state;
const consoleOf = (id: string) => agent.servers.get(id)?.console.lines().join('\n') ?? '';

async function startAndSettle(id: string): Promise<string> {
  await call('POST', `/v1/servers/${id}/power`, { action: 'start' });
  return until(
    () => stateOf(id),
    (s) => s === 'online' || (s === 'offline' && consoleOf(id).includes('Not started')) || consoleOf(id).includes('Could not start'),
  ).then((s) => s ?? 'unknown');
}

async function stop(id: string) {
  await call('POST', `/v1/servers/${id}/power`, { action: 'stop' });
  await until(
    () => stateOf(id),
    (s) => s === 'offline',
  );
}

describe('a tenant folder cannot choose the code the node runs', () => {
  it('ignores loader configuration, packages and environment planted for the game process', async () => {
    const dir = await install('rce1');
    const marker = path.join(outside, 'rce-ran');
    const evil = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'the tenant ran code on the node');`;
    // Everything a TypeScript loader or Node itself might read from the working directory.
    expect((await put('rce1', 'evil.cjs', evil)).body.status).toBe('SUCCESS');
    await put('rce1', 'tsconfig.json', JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '*': ['./evil.cjs'] } } }));
    await put('rce1', 'package.json', JSON.stringify({ type: 'commonjs', imports: { '#flying-squid': './evil.cjs' }, main: 'evil.cjs' }));
    await put('rce1', '.npmrc', 'node-options=--require ./evil.cjs\n');
    await put('rce1', '.env', 'NODE_OPTIONS=--require ./evil.cjs\n');
    await call('POST', '/v1/servers/rce1/files/mkdir', { path: 'node_modules' });
    await call('POST', '/v1/servers/rce1/files/mkdir', { path: 'node_modules/flying-squid' });
    await put('rce1', 'node_modules/flying-squid/index.js', evil);
    await put('rce1', 'node_modules/flying-squid/package.json', JSON.stringify({ name: 'flying-squid', main: 'index.js' }));
    // The agent's own environment must not reach the game either.
    const saved = { NODE_OPTIONS: process.env.NODE_OPTIONS, SECRET: process.env.SPAWNPOINT_TEST_SECRET };
    process.env.NODE_OPTIONS = `--require ${path.join(dir, 'evil.cjs')}`;
    process.env.SPAWNPOINT_TEST_SECRET = 'agent-only';
    let state: string;
    try {
      state = await startAndSettle('rce1');
    } finally {
      if (saved.NODE_OPTIONS === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved.NODE_OPTIONS;
      delete process.env.SPAWNPOINT_TEST_SECRET;
    }
    expect(state).toBe('online');
    expect(existsSync(marker)).toBe(false);
    const pid = JSON.parse(readFileSync(path.join(dataDir, 'run/rce1/process.json'), 'utf8')) as { pid: number };
    const environ = readFileSync(`/proc/${pid.pid}/environ`, 'utf8').split('\0');
    expect(environ.some((v) => v.startsWith('NODE_OPTIONS='))).toBe(false);
    expect(environ.some((v) => v.includes('agent-only') || v.includes(token))).toBe(false);
    // The game runs compiled JavaScript by absolute path, with no loader.
    const cmdline = readFileSync(`/proc/${pid.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline.some((a) => a.includes('tsx'))).toBe(false);
    expect(cmdline.find((a) => a.endsWith('.mjs'))).toMatch(/^\//);
    await stop('rce1');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('path-valued settings stay inside the folder', () => {
  it('refuses a level-name that leaves the folder, relative or absolute, and writes nothing there', async () => {
    await install('lvl1');
    const victim = await install('lvl2');
    // [as written in server.properties, as the game reads it]: a backslash is an escape there, as in Java,
    // so a Windows path is written with it doubled.
    const cases: [string, string][] = [
      ['../lvl2/x', '../lvl2/x'],
      [`${outside}/abs-world`, `${outside}/abs-world`],
      ['..', '..'],
      ['world/../../lvl2/y', 'world/../../lvl2/y'],
      ['C:\\\\world', 'C:\\world'],
      ['C:\\world', 'C:world'],
    ];
    for (const [written, read] of cases) {
      expect((await put('lvl1', 'server.properties', `motd=hi\nlevel-name=${written}\n`)).body.status).toBe('SUCCESS');
      expect(await startAndSettle('lvl1')).toBe('offline');
      expect(consoleOf('lvl1')).toContain(`level-name=${read} in server.properties must name a folder inside the server folder`);
    }
    expect(existsSync(path.join(victim, 'x'))).toBe(false);
    expect(existsSync(path.join(victim, 'y'))).toBe(false);
    expect(existsSync(path.join(outside, 'abs-world'))).toBe(false);
  });

  it('refuses a world folder reached through a link planted by game code', async () => {
    const dir = await install('lvl3');
    const victim = await install('lvl4');
    await put('lvl3', 'server.properties', 'motd=hi\nlevel-name=world\n');
    symlinkSync(victim, path.join(dir, 'world'));
    expect(await startAndSettle('lvl3')).toBe('offline');
    expect(consoleOf('lvl3')).toContain('world is a link');
    expect(readdirSync(victim).sort()).toEqual(['server.properties']);
  });
});

describe('the node never writes through a link in a tenant folder', () => {
  it('does not follow a dangling server.properties link when installing or starting', async () => {
    const dir = await install('lnk1');
    const target = path.join(outside, 'written-through-link');
    unlinkSync(path.join(dir, 'server.properties'));
    symlinkSync(target, path.join(dir, 'server.properties'));
    // The control plane sends the spec again before every start.
    const again = await call('PUT', '/v1/servers/lnk1', {
      serverId: 'lnk1',
      software: 'flying-squid',
      version: '1.21.4',
      port: await freePort(),
      memoryMb: 512,
      diskMb: 64,
      maxPlayers: 5,
      motd: 'x',
    });
    expect(again.body.status).toBe('INVALID_INPUT');
    expect(again.body.message).toContain('server.properties exists and is not a regular file');
    expect(await startAndSettle('lnk1')).toBe('offline');
    expect(existsSync(target)).toBe(false);
  });

  it('refuses to start while a link sits where the game writes (its logs folder)', async () => {
    const dir = await install('lnk2');
    mkdirSync(path.join(outside, 'logs-target'));
    symlinkSync(path.join(outside, 'logs-target'), path.join(dir, 'logs'));
    expect(await startAndSettle('lnk2')).toBe('offline');
    expect(consoleOf('lnk2')).toContain('logs is a link');
    expect(readdirSync(path.join(outside, 'logs-target'))).toEqual([]);
  });

  it('deletes a server without following a link inside its folder', async () => {
    const dir = await install('lnk3');
    mkdirSync(path.join(outside, 'keep'));
    writeFileSync(path.join(outside, 'keep/precious.txt'), 'keep me');
    symlinkSync(path.join(outside, 'keep'), path.join(dir, 'plugins'));
    expect((await call('DELETE', '/v1/servers/lnk3')).body.status).toBe('SUCCESS');
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(path.join(outside, 'keep/precious.txt'), 'utf8')).toBe('keep me');
  });
});

describe('no request ends the agent', () => {
  /** Descriptors of this process open on what is inside a server folder (the folder itself stays open). */
  const openIn = (dir: string) =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}/`);
      } catch {
        return false;
      }
    }).length;

  it('survives folder downloads cancelled at once and midway, and closes what it opened', async () => {
    const dir = await install('dos1');
    mkdirSync(path.join(dir, 'big'));
    // Many small files: the walk is busy between files when the reader goes away (that ended the agent).
    for (let i = 0; i < 400; i++) writeFileSync(path.join(dir, 'big', `r${i}.bin`), randomBytes(i % 50 === 0 ? 1024 * 1024 : 2000));
    for (let round = 0; round < 4; round++) {
      const abort = new AbortController();
      const response = await fetch(`${base}/v1/servers/dos1/files/download?path=%2Fbig`, {
        headers: { authorization: `Bearer ${token}` },
        signal: abort.signal,
      });
      expect(response.headers.get('content-type')).toContain('gzip');
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      // As the control plane does for a folder asked for as text: cancel at once; and also after a chunk.
      if (round % 2) await reader.read();
      abort.abort();
      await reader.cancel().catch(() => undefined);
    }
    // Every file and folder it opened for the cancelled archives is closed again.
    await until(
      () => openIn(dir),
      (n) => n === 0,
    );
    expect((await call('GET', '/v1/servers')).status).toBe(200);
  });

  it('refuses an archive past the quota cleanly, leaving no partial file', async () => {
    const dir = await install('dos2', 64);
    // Incompressible: its archive needs as much room again, and 64 MB do not hold both.
    expect((await put('dos2', 'noise.bin', randomBytes(36 * 1024 * 1024))).body.status).toBe('SUCCESS');
    const res = await call('POST', '/v1/servers/dos2/files/archive', { paths: ['/noise.bin'], destination: '/noise.tar.gz' });
    expect(res.status).toBe(409);
    expect(res.body.status).toBe('DISK_LIMIT');
    expect(readdirSync(dir).sort()).toEqual(['noise.bin', 'server.properties']); // nothing partial left
    expect((await call('GET', '/v1/servers')).status).toBe(200);
  });

  it('answers an archive whose name is taken at once, and closes what it opened', async () => {
    const dir = await install('dos4');
    mkdirSync(path.join(dir, 'big'));
    for (let i = 0; i < 4; i++) writeFileSync(path.join(dir, 'big', `r${i}.bin`), randomBytes(2 * 1024 * 1024));
    writeFileSync(path.join(dir, 'out.tar.gz'), 'already here');
    const res = await call('POST', '/v1/servers/dos4/files/archive', { paths: ['/big'], destination: '/out.tar.gz' });
    expect(res.status).toBe(409);
    expect(res.body.status).toBe('INVALID_STATE');
    await until(
      () => openIn(dir),
      (n) => n === 0,
    );
  });

  it('gives back what a cut-off upload wrote and charged, and closes it', async () => {
    const dir = await install('dos5', 64);
    const before = (await call('GET', '/v1/servers/dos5/files/usage')).body.result as { used: number };
    for (let round = 0; round < 3; round++) {
      // A client that declares 8 MB, sends 256 KB and goes away.
      const socket = connectTcp(Number(new URL(base).port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `PUT /v1/servers/dos5/files/write?path=%2Fcut${round}.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/octet-stream\r\nContent-Length: ${8 * 1024 * 1024}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(256 * 1024, 1));
      await until(
        () => readdirSync(dir).some((n) => n.startsWith('.spawnpoint-')),
        (started) => started,
      );
      socket.destroy();
    }
    await until(
      () => readdirSync(dir).filter((n) => n.startsWith('.spawnpoint-') || n.startsWith('cut')),
      (left) => left.length === 0,
    );
    await until(
      () => openIn(dir),
      (n) => n === 0,
    );
    const after = (await call('GET', '/v1/servers/dos5/files/usage')).body.result as { used: number };
    expect(after.used).toBe(before.used);
  });

  it('answers a folder swapped for a link before the download with a clear refusal', async () => {
    const dir = await install('dos3');
    mkdirSync(path.join(outside, 'secret-folder'));
    writeFileSync(path.join(outside, 'secret-folder/secret.txt'), 'secret');
    symlinkSync(path.join(outside, 'secret-folder'), path.join(dir, 'swapped'));
    const res = await fetch(`${base}/v1/servers/dos3/files/download?path=%2Fswapped`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { status: string }).status).toBe('INVALID_INPUT');
  });
});

describe('a backup the product made always restores', () => {
  it('restores names with backslashes, drive letters and control characters as they are', async () => {
    const dir = await install('bk1');
    const names = ['..\\..\\x', 'C:x', 'tab\there', 'new\nline'];
    // The file manager accepts the first two; game code can create any of them.
    expect((await put('bk1', '..\\..\\x', 'one')).body.status).toBe('SUCCESS');
    expect((await put('bk1', 'C:x', 'two')).body.status).toBe('SUCCESS');
    writeFileSync(path.join(dir, 'tab\there'), 'three');
    writeFileSync(path.join(dir, 'new\nline'), 'four');
    expect((await call('POST', '/v1/servers/bk1/backups/b1')).body.status).toBe('SUCCESS');
    await until(
      () => existsSync(path.join(dataDir, 'storage/backups/bk1/b1.tar.gz')),
      (done) => done,
    );
    for (const name of names) rmSync(path.join(dir, name));
    const restored = await call('POST', '/v1/servers/bk1/backups/b1/restore');
    expect(restored.body).toMatchObject({ status: 'SUCCESS' });
    expect(readFileSync(path.join(dir, '..\\..\\x'), 'utf8')).toBe('one');
    expect(readFileSync(path.join(dir, 'C:x'), 'utf8')).toBe('two');
    expect(readFileSync(path.join(dir, 'tab\there'), 'utf8')).toBe('three');
    expect(readFileSync(path.join(dir, 'new\nline'), 'utf8')).toBe('four');
    expect(existsSync(path.join(dataDir, 'x'))).toBe(false);
  });
});
