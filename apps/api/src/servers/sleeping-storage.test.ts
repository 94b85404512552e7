import { createHash, randomBytes } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { eq } from 'drizzle-orm';
import S3rver from 's3rver';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servers } from '../db/schema.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester, type Send } from '../test/build-test-app.ts';
import { joinGame, watchServer } from '../test/server-watch.ts';
import { until } from '../../../../test-support/until.ts';
import { serviceArgs } from '../../../../test-support/service-command.ts';

/**
 * Sleeping servers that move (many machines, item 2): two real agents keep backups and sleeping servers
 * in one S3-compatible bucket (s3rver on loopback); a server that falls asleep goes there and wakes on the
 * other node once its own is gone.
 */
const IDLE_MS = 1500;
// Long enough that a woken server is still up when the test, on a machine busy with every other suite, has
// read its files and sent a player in (3 s was not: it fell asleep first and the player's connection reset).
const MIN_ONLINE_MS = 10_000;
const BUCKET = 'spawnpoint';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let base: string;
let work: string;
let s3: S3rver;
let client: S3Client;
const agents: AgentProcess[] = [];
const sockets: Socket[] = [];
const send: Send = (...args) => requester(t.app)(...args);
const run = promisify(execFile);

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-sleep-storage-'));
  mkdirSync(path.join(work, 's3'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(work, 's3') });
  const { port } = (await s3.run()) as AddressInfo;
  client = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const S3_URL = `s3://S3RVER:S3RVER@127.0.0.1:${port}/${BUCKET}?tls=false`;
  // Their log at info, so a failure below can say what each node did (it is printed only then).
  agents.push(
    await prepareAgent(50, { S3_URL, LOG_LEVEL: 'info' }, 'node-a'),
    await prepareAgent(50, { S3_URL, LOG_LEVEL: 'info' }, 'node-b'),
  );
  t = await buildTestApp({
    AGENTS: JSON.stringify(agents.map((a) => a.nodeConfig)),
    IDLE_STOP_MINUTES: String(IDLE_MS / 60_000),
    MIN_ONLINE_MINUTES: String(MIN_ONLINE_MS / 60_000),
    // A start that fetches from storage is answered as soon as the fetch begins (production waits 5 s first).
    FETCH_ANSWER_SECONDS: '0',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  for (const agent of agents) agent.start(base);
  await connected(['node-a', 'node-b']);
}, 60_000);
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t?.cleanup();
  for (const agent of agents) await agent.stop();
  await s3?.close();
  await rm(work, { recursive: true, force: true });
});

/** Waits until exactly these nodes are connected; when they are not, says what each agent last logged. */
const connected = (ids: string[]) =>
  until(
    async () => (await send('GET', '/healthz')).json().result.agents as string[],
    (a) => ids.every((id) => a.includes(id)) && a.length === ids.length,
    60_000,
  ).catch((err: unknown) => {
    const logs = agents.map((a) => `--- ${a.nodeConfig.id}, its last log lines:\n${a.output().slice(-25).join('\n')}`);
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${logs.join('\n')}`);
  });
const rowOf = async (id: string) => (await t.ctx.database.db.select().from(servers).where(eq(servers.id, id)))[0]!;
const details = async (cookie: string, id: string) => (await send('GET', `/v1/server/${id}`, cookie)).json().result;
const stored = async (id: string) => {
  const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `sleeping/${id}.tar.gz` }));
  return Buffer.from(await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
};
/** `npm run operator -- …` as an operator types it, next to this API. */
async function operator(...args: string[]): Promise<string> {
  const port = (t.app.server.address() as AddressInfo).port;
  const { stdout } = await run(process.execPath, [...serviceArgs('api', 'cli'), ...args], {
    cwd: path.resolve(import.meta.dirname, '../../../..'),
    env: { ...process.env, PORT: String(port), DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' },
  });
  return stdout;
}
const agentOf = (nodeId: string) => agents.find((a) => a.nodeConfig.id === nodeId)!;

/** Starts the server, lets it fall asleep with nobody playing, and waits until its folder is in storage. */
async function sleepIntoStorage(cookie: string, id: string) {
  const states = await watchServer(send, base, sockets, cookie, id);
  expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
  // Start, the idle timer and the packing: on a busy 2-core machine this can pass the default minute.
  await states.reached('uploading', 120_000);
  // Awaited on the socket, as the page sees it: asleep again once the folder is in storage.
  await until(
    () => states.order().at(-1),
    (s) => s === 'sleeping',
    120_000,
  );
  expect((await details(cookie, id)).state).toBe('sleeping');
  return states;
}

describe('sleeping servers in shared storage', { timeout: 300_000 }, () => {
  it('lets the operator move a stopped server to another node and then remove the emptied one', async () => {
    const { cookie, id } = await ownerWithServer(t, 'moved');
    const from = (await rowOf(id)).nodeId;
    const to = agents.map((a) => a.nodeConfig.id).find((n) => n !== from)!;
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/marker.txt', content: 'moved along' });
    const asOperator = { authorization: `Bearer ${t.config.operatorToken}` };
    const operatorSend = (url: string, body: unknown) => send('POST', url, undefined, body, asOperator);

    // Its folder is still on the node: the node cannot go yet, and says what to do.
    const early = (await operatorSend('/v1/operator/nodes/remove', { nodeId: from })).json();
    expect(early).toEqual({
      status: 'INVALID_STATE',
      message: `Node ${from} is drained but still holds the folders of 1 server(s). Move them first (npm run operator -- servers move <server> <node>), then remove it.`,
    });
    expect((await operatorSend('/v1/operator/servers/move', { serverId: id, nodeId: 'no-such-node' })).json().status).toBe('NOT_FOUND');
    expect(await operator('servers', 'move', (await details(cookie, id)).name, to)).toMatch(
      new RegExp(`${id}\\s.*\\s${to}\\s+offline\\s+node`),
    );

    const row = await rowOf(id);
    expect(row).toMatchObject({ nodeId: to, storedIn: null });
    expect(existsSync(path.join(agentOf(from).dataDir, 'servers', id))).toBe(false);
    expect((await send('GET', `/v1/server/${id}/files/content?path=/marker.txt`, cookie)).json().result.content).toBe('moved along');
    expect((await details(cookie, id)).port).toBe(row.port);

    expect((await operatorSend('/v1/operator/nodes/remove', { nodeId: from })).json().result).toMatchObject({
      nodeId: from,
      draining: true,
      placedServers: 0,
    });
    // Taken back for the tests below.
    await operatorSend('/v1/operator/nodes/drain', { nodeId: from, draining: false });
  });

  it('goes to storage when it falls asleep, checked by SHA-256, frees its node, is backed up there, and wakes on another node once its own is gone', async () => {
    const { cookie, id } = await ownerWithServer(t, 'mover');
    const first = await rowOf(id);
    const home = agentOf(first.nodeId);
    expect(
      (await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/marker.txt', content: 'built before the nap' })).json().status,
    ).toBe('SUCCESS');

    const states = await sleepIntoStorage(cookie, id);
    expect(states.order()).toEqual(['queued', 'starting', 'online', 'stopping', 'sleeping', 'uploading', 'sleeping']);
    // Recorded with the digest of exactly what the bucket holds, and the node's copy is gone.
    const row = await rowOf(id);
    expect(row.storedIn).toMatch(/^s3:\/\/127\.0\.0\.1:\d+\/spawnpoint$/);
    expect(row.storedSha256).toBe(
      createHash('sha256')
        .update(await stored(id))
        .digest('hex'),
    );
    expect(row.storedIn).not.toContain('S3RVER');
    await until(
      () => existsSync(path.join(home.dataDir, 'servers', id)),
      (there) => !there,
    );
    // Its files are in storage: the file manager says so and what to do, instead of failing.
    const files = await send('GET', `/v1/server/${id}/files/list?path=/`, cookie);
    expect(files.statusCode).toBe(409);
    expect(files.json()).toEqual({
      status: 'INVALID_STATE',
      message: 'The server sleeps with its files in storage. Start it (or join it) to work on them.',
    });
    // A backup is still made while it sleeps there: its stored archive, copied and checked, is the backup.
    expect((await send('POST', `/v1/server/${id}/backups`, cookie)).json().status).toBe('SUCCESS');
    const [backup] = (
      await until(
        async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result,
        (page: { running: boolean; backups: unknown[] }) => !page.running && page.backups.length === 1,
      )
    ).backups as { backupId: string; sha256: string; size: number }[];
    expect(backup?.sha256).toBe(row.storedSha256);
    await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `backups/${id}/${backup?.backupId}.tar.gz` }));

    // Its node dies while it sleeps: the server is not lost with it.
    await home.crash();
    await connected(agents.filter((a) => a !== home).map((a) => a.nodeConfig.id));
    states.clear();
    const start = (await send('POST', `/v1/server/${id}/start`, cookie)).json();
    expect(start.status).toBe('SUCCESS');
    // Fetched from storage, unpacked and started on a node of a machine busy with every other suite.
    await states.reached('online', 120_000).catch((err: unknown) => {
      throw new Error(
        `${String(err)} after ${JSON.stringify(states.order())}\n${agents.map((a) => `--- ${a.nodeConfig.id}:\n${a.output().slice(-25).join('\n')}`).join('\n')}`,
      );
    });
    expect(states.order()).toEqual(['downloading', 'waking', 'online']);
    const woke = await rowOf(id);
    expect(woke.nodeId).not.toBe(first.nodeId);
    expect(woke.storedIn).toBeNull();
    // The same world and files, on the other node, and a player gets in at the address the page shows now.
    expect((await send('GET', `/v1/server/${id}/files/content?path=/marker.txt`, cookie)).json().result.content).toBe(
      'built before the nap',
    );
    const server = await details(cookie, id);
    expect(server.port).toBe(woke.port);
    const bot = await joinGame(server.port, 'Traveller');
    bot.end('bye');
    expect((await send('POST', `/v1/server/${id}/kill`, cookie)).json().status).toBe('SUCCESS');
    // Not running any more, as the API says it (its page's state). On a busy machine the player's visit can
    // outlast the minimum time online and the idle time (3 + 1.5 s here): the server may have fallen asleep
    // (to storage) by itself before the kill, which then has nothing to end.
    await until(
      async () => (await details(cookie, id)).state,
      (s) => s === 'offline' || s === 'sleeping',
      60_000,
    ).catch((err: unknown) => {
      throw new Error(
        `${String(err)}; the socket saw ${JSON.stringify(states.order())}\n${agents.map((a) => `--- ${a.nodeConfig.id}:\n${a.output().slice(-25).join('\n')}`).join('\n')}`,
      );
    });
    // Back for the next test: the crashed node returns.
    home.start(base);
    await connected(['node-a', 'node-b']);
  });

  it('loses nothing when the node is killed while the folder goes to storage, or while it comes back', async () => {
    const { cookie, id } = await ownerWithServer(t, 'killed');
    const home = agentOf((await rowOf(id)).nodeId);
    // A world big enough that packing and fetching it take a while (incompressible), put there as the game would.
    const world = randomBytes(64 * 1024 * 1024);
    writeFileSync(path.join(home.dataDir, 'servers', id, 'region.mca'), world);
    const digest = createHash('sha256').update(world).digest('hex');

    // Killed while packing the folder for storage: the server sleeps on its node, whole.
    const states = await watchServer(send, base, sockets, cookie, id);
    await send('POST', `/v1/server/${id}/start`, cookie);
    await states.reached('uploading');
    await home.crash();
    await until(
      async () => (await details(cookie, id)).state,
      (s) => s === 'sleeping',
    );
    expect((await rowOf(id)).storedIn).toBeNull();
    // Seen gone before it comes back (else the returning node could be taken for the dead one's socket).
    await connected(agents.filter((a) => a !== home).map((a) => a.nodeConfig.id));
    home.start(base);
    await connected(['node-a', 'node-b']);
    const kept = readFileSync(path.join(home.dataDir, 'servers', id, 'region.mca'));
    expect(createHash('sha256').update(kept).digest('hex')).toBe(digest);

    // Into storage for real; then killed while fetching it back on its own node: still asleep in storage.
    await sleepIntoStorage(cookie, id);
    states.clear();
    const waking = send('POST', `/v1/server/${id}/start`, cookie);
    await states.reached('downloading');
    expect((await rowOf(id)).nodeId).toBe(home.nodeConfig.id);
    // Answered while the world is still coming (the page shows it), not once all of it is there.
    expect((await waking).json().status).toBe('SUCCESS');
    expect(states.order()).toEqual(['downloading']);
    await home.crash();
    // The start does not happen, the console says why, and it is still asleep in storage.
    await until(
      () => states.order().at(-1),
      (s) => s === 'sleeping',
    );
    await until(
      () => states.lines.join('\n'),
      (text) => text.includes('The start did not happen'),
    );
    expect((await rowOf(id)).storedIn).not.toBeNull();

    // Woken on the other node (once the control plane has seen its own go), with every byte of its world.
    await connected(agents.filter((a) => a !== home).map((a) => a.nodeConfig.id));
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      async () => (await details(cookie, id)).state,
      (s) => s === 'online',
    );
    const other = agentOf((await rowOf(id)).nodeId);
    expect(other).not.toBe(home);
    const moved = readFileSync(path.join(other.dataDir, 'servers', id, 'region.mca'));
    expect(createHash('sha256').update(moved).digest('hex')).toBe(digest);
    await send('POST', `/v1/server/${id}/kill`, cookie);

    // The node comes back and clears what the cut-short fetch left.
    home.start(base);
    await connected(['node-a', 'node-b']);
    expect(readdirSync(path.join(home.dataDir, 'servers')).filter((name) => name.startsWith(`${id}.`))).toEqual([]);
  });

  it('restores a backup of a server asleep in storage: its folder comes back onto a node, restored, and it sleeps on', async () => {
    const { cookie, id } = await ownerWithServer(t, 'restored');
    const write = (content: string) => send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/marker.txt', content });
    expect((await write('as backed up')).json().status).toBe('SUCCESS');
    expect((await send('POST', `/v1/server/${id}/backups`, cookie)).json().status).toBe('SUCCESS');
    const [backup] = (
      await until(
        async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result,
        (page: { running: boolean; backups: unknown[] }) => !page.running && page.backups.length === 1,
      )
    ).backups as { backupId: string }[];
    expect((await write('changed after the backup')).json().status).toBe('SUCCESS');
    const states = await sleepIntoStorage(cookie, id);
    expect((await rowOf(id)).storedIn).not.toBeNull();

    states.clear();
    const restore = (await send('POST', `/v1/server/${id}/backups/${backup?.backupId}/restore`, cookie)).json();
    expect(restore).toMatchObject({ status: 'SUCCESS', result: { restoring: backup?.backupId } });
    // Fetched (the page shows it), restored there, and asleep on that node's disk now.
    await until(
      () => states.order(),
      (order) => order.at(-1) === 'sleeping' && order.includes('restoring'),
    );
    expect(states.order()).toEqual(['downloading', 'sleeping', 'restoring', 'sleeping']);
    expect((await rowOf(id)).storedIn).toBeNull();
    expect((await details(cookie, id)).state).toBe('sleeping');
    expect((await send('GET', `/v1/server/${id}/files/content?path=/marker.txt`, cookie)).json().result.content).toBe('as backed up');
  });

  it('refuses an archive whose bytes changed in storage: the server stays asleep there, and deleting it removes the archive', async () => {
    const { cookie, id } = await ownerWithServer(t, 'tamper');
    await sleepIntoStorage(cookie, id);
    const key = `sleeping/${id}.tar.gz`;
    // Another folder's archive in its place, well-formed: only the digest tells them apart.
    const other = path.join(work, 'other');
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, 'server.properties'), 'motd=not yours\n');
    execFileSync('tar', ['-czf', path.join(work, 'other.tar.gz'), '-C', other, '.']);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: readFileSync(path.join(work, 'other.tar.gz')) }));

    // Answered once the fetch began; the node refuses the archive and the console says so.
    const states = await watchServer(send, base, sockets, cookie, id);
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    const refused = "The start did not happen: The server's archive in storage is damaged (its SHA-256 does not match); it was not used.";
    const refusals = () => states.lines.filter((line) => line.includes('The start did not happen') && line.includes('is damaged'));
    await until(
      () => refusals().length,
      (n) => n === 1,
    );
    expect(refusals()[0]).toContain(refused);
    // The page is told too (a toast on the overview).
    expect(states.errors).toEqual([{ serverId: id, status: 'INVALID_STATE', message: refused }]);
    expect(states.order()).toEqual(['downloading', 'sleeping']);
    expect((await details(cookie, id)).state).toBe('sleeping');
    expect((await rowOf(id)).storedIn).not.toBeNull();

    // A broken one likewise (its gzip ends wrong).
    const broken = await stored(id);
    broken.writeUInt8(broken.readUInt8(broken.length - 10) ^ 0xff, broken.length - 10);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: broken }));
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await until(
      () => refusals().length,
      (n) => n === 2,
    );
    expect((await details(cookie, id)).state).toBe('sleeping');

    expect((await send('DELETE', `/v1/server/${id}`, cookie)).json().status).toBe('SUCCESS');
    await expect(client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toThrow();
  });
});
