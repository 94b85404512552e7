import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type Agent } from './agent.ts';
import { loadAgentConfig } from './config.ts';
import { backupFile } from './server-files.ts';
import { until } from '../../../test-support/until.ts';

let agent: Agent;
let dataDir: string;
let base: string;
const token = randomBytes(24).toString('hex');
const config = () =>
  loadAgentConfig({ AGENT_TOKEN: token, AGENT_PORT: '0', DATA_DIR: dataDir, API_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'silent' });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-agent-files-'));
  agent = await createAgent(config());
  base = `http://127.0.0.1:${(agent.http.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function call(method: string, url: string, body?: unknown, raw?: Buffer) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(raw ? { 'content-type': 'application/octet-stream' } : body ? { 'content-type': 'application/json' } : {}),
    },
    body: raw ?? (body ? JSON.stringify(body) : undefined),
  });
  const type = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    body: type.includes('json') ? ((await response.json()) as { status: string; result?: unknown; message?: string }) : null,
    bytes: type.includes('json') ? null : Buffer.from(await response.arrayBuffer()),
  };
}

let portCounter = 40000 + Math.floor(Math.random() * 1000);
async function install(serverId: string, diskMb = 64) {
  const res = await call('PUT', `/v1/servers/${serverId}`, {
    serverId,
    software: 'flying-squid',
    version: '1.21.4',
    port: portCounter++,
    memoryMb: 512,
    diskMb,
    maxPlayers: 5,
    motd: 'Files',
  });
  expect(res.body?.status).toBe('SUCCESS');
  return path.join(dataDir, 'servers', serverId);
}

function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full, `${rel}${name}/`);
      else out[`${rel}${name}`] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir, '');
  return out;
}

describe('files through the agent API', () => {
  it('uploads, lists, downloads, renames, archives, extracts and deletes', async () => {
    const root = await install('files1');
    const data = randomBytes(300_000);
    expect((await call('PUT', '/v1/servers/files1/files/write?path=/plugins/big.bin&overwrite=false', undefined, data)).status).toBe(404);
    expect((await call('POST', '/v1/servers/files1/files/mkdir', { path: '/plugins' })).body?.status).toBe('SUCCESS');
    expect((await call('PUT', '/v1/servers/files1/files/write?path=/plugins/big.bin&overwrite=false', undefined, data)).body?.status).toBe(
      'SUCCESS',
    );
    expect((await call('PUT', '/v1/servers/files1/files/write?path=/plugins/big.bin&overwrite=false', undefined, data)).body?.status).toBe(
      'INVALID_STATE',
    );
    const list = (await call('GET', '/v1/servers/files1/files/list?path=/plugins')).body?.result as { name: string; size: number }[];
    expect(list).toEqual([expect.objectContaining({ name: 'big.bin', size: 300_000, type: 'file' })]);
    expect((await call('GET', '/v1/servers/files1/files/download?path=/plugins/big.bin')).bytes?.equals(data)).toBe(true);

    expect(
      (await call('POST', '/v1/servers/files1/files/rename', { from: '/plugins/big.bin', to: '/plugins/renamed.bin' })).body?.status,
    ).toBe('SUCCESS');
    expect(
      (await call('POST', '/v1/servers/files1/files/archive', { paths: ['/plugins'], destination: '/plugins.tar.gz' })).body?.status,
    ).toBe('SUCCESS');
    expect((await call('POST', '/v1/servers/files1/files/extract', { path: '/plugins.tar.gz', destination: '/copy' })).body?.status).toBe(
      'SUCCESS',
    );
    expect(readFileSync(path.join(root, 'copy/plugins/renamed.bin')).equals(data)).toBe(true);
    const found = (await call('GET', '/v1/servers/files1/files/search?q=RENAMED')).body?.result as { path: string }[];
    expect(found.map((f) => f.path).sort()).toEqual(['/copy/plugins/renamed.bin', '/plugins/renamed.bin']);

    const folder = await call('GET', '/v1/servers/files1/files/download?path=/copy');
    expect(folder.bytes?.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    expect((await call('POST', '/v1/servers/files1/files/delete', { paths: ['/copy', '/plugins.tar.gz'] })).body?.status).toBe('SUCCESS');
    expect(existsSync(path.join(root, 'copy'))).toBe(false);
  });

  it('refuses an upload past the disk quota and does not start a server over its quota', async () => {
    const root = await install('quota1', 64);
    const res = await call('PUT', '/v1/servers/quota1/files/write?path=/huge.bin', undefined, Buffer.alloc(65 * 1024 * 1024));
    expect(res.status).toBe(409);
    expect(res.body?.status).toBe('DISK_LIMIT');
    expect(existsSync(path.join(root, 'huge.bin'))).toBe(false);
    // The game server itself can fill the disk: measured at start.
    writeFileSync(path.join(root, 'written-by-game.bin'), Buffer.alloc(65 * 1024 * 1024));
    const start = await call('POST', '/v1/servers/quota1/power', { action: 'start' });
    expect(start.body?.status).toBe('DISK_LIMIT');
    expect(agent.servers.get('quota1')?.state).toBe('offline');
  });

  it('edits server.properties keeping comments and unknown keys', async () => {
    const root = await install('props1');
    writeFileSync(path.join(root, 'server.properties'), '# my notes\nmotd=Old\ncustom-key=keep me\n');
    const res = await call('PUT', '/v1/servers/props1/properties', { values: { motd: 'New\nline', 'max-players': '7' } });
    expect(res.body?.result).toMatchObject({ motd: 'New line', 'max-players': '7', 'custom-key': 'keep me' });
    expect(readFileSync(path.join(root, 'server.properties'), 'utf8')).toBe(
      '# my notes\nmotd=New line\ncustom-key=keep me\nmax-players=7\n',
    );
  });
});

describe('backups', () => {
  it('backs up, then restores every file exactly after changes', async () => {
    const root = await install('bk1');
    mkdirSync(path.join(root, 'world/region'), { recursive: true });
    writeFileSync(path.join(root, 'world/level.dat'), randomBytes(10_000));
    writeFileSync(path.join(root, 'world/region/r.0.0.mca'), randomBytes(200_000));
    const before = hashTree(root);
    expect((await call('POST', '/v1/servers/bk1/backups/b1')).body?.status).toBe('SUCCESS');
    const file = backupFile(path.join(dataDir, 'storage'), 'bk1', 'b1');
    await until(
      () => existsSync(file),
      (v) => v,
    );
    expect(existsSync(`${file}.partial`)).toBe(false);
    await until(
      () => agent.servers.get('bk1')?.state,
      (s) => s === 'offline',
    );

    writeFileSync(path.join(root, 'world/level.dat'), 'corrupted');
    writeFileSync(path.join(root, 'griefed.txt'), 'oops');
    await rm(path.join(root, 'world/region'), { recursive: true });

    expect((await call('POST', '/v1/servers/bk1/backups/b1/restore')).body?.status).toBe('SUCCESS');
    expect(hashTree(root)).toEqual(before);
    expect(readdirSync(path.dirname(root)).filter((n) => n.startsWith('bk1.'))).toEqual([]);

    const download = await call('GET', '/v1/servers/bk1/backups/b1');
    expect(
      createHash('sha256')
        .update(download.bytes as Buffer)
        .digest('hex'),
    ).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
  });

  it('a backup cut off by a crash leaves nothing behind after the agent restarts', async () => {
    await install('bk2');
    const file = backupFile(path.join(dataDir, 'storage'), 'bk2', 'crashed');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.partial`, 'half a backup');
    const second = await createAgent({ ...config(), AGENT_PORT: 0 });
    await second.close();
    expect(existsSync(`${file}.partial`)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });
});
