import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, writeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { FREE_BACKUP_LIMIT, type BackupRestoreEvent } from '@spawnpoint/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backups } from '../db/schema.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, ownerWithServer as newOwnerWithServer, requester, type Send } from '../test/build-test-app.ts';
import { until } from '../../../../test-support/until.ts';

/**
 * Backup bookkeeping: the list follows a running backup; rotation only after a backup completed; a node
 * restarted midway; a restore that holds the server's power line. A real agent process and real backups.
 */
let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;
let base: string;

beforeAll(async () => {
  agent = await prepareAgent();
  // Several backups per server in one test (the budget is 3 per 10 minutes).
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]), RATE_LIMIT_FACTOR: '3' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  agent.start(base);
  await nodeConnected();
});
afterAll(async () => {
  await t.cleanup();
  await agent.stop();
});

// An agent process starting again compiles its TypeScript first: slow on a machine busy with other suites.
const nodeConnected = () =>
  until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
    90_000,
  );

const send: Send = (...args) => requester(t.app)(...args);

async function ownerWithServer() {
  const { cookie, id } = await newOwnerWithServer(t, 'backups');
  return { cookie, id, folder: path.join(agent.dataDir, 'servers', id), store: path.join(agent.dataDir, 'storage/backups', id) };
}

type Listing = {
  backups: { backupId: string; locked: boolean; sha256: string; size: number }[];
  running: boolean;
  pending: { percent: number } | null;
};
const list = async (cookie: string, id: string): Promise<Listing> => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result;
const idle = (cookie: string, id: string) =>
  until(
    () => list(cookie, id),
    (l) => !l.running,
    60_000,
  );

async function backUp(cookie: string, id: string): Promise<Listing> {
  expect((await send('POST', `/v1/server/${id}/backups`, cookie, {})).json().status).toBe('SUCCESS');
  return idle(cookie, id);
}

describe('the backup budget', () => {
  it('says the rule and when the next backup is allowed once a server made its backups for 10 minutes', async () => {
    const { cookie, id } = await ownerWithServer();
    // 3 in 10 minutes, times this suite's factor of 3.
    for (let i = 0; i < 9; i++) await backUp(cookie, id);
    const refused = (await send('POST', `/v1/server/${id}/backups`, cookie, {})).json();
    expect(refused.status).toBe('RATE_LIMIT');
    expect(refused.message).toMatch(
      /^A server can make 9 backups in 10 minutes, and this one has\. The next can be made in (a minute|\d+ minutes); a schedule's backups do not count\.$/,
    );
  });
});

describe('backup downloads', () => {
  it('gives the owner a link on the node that serves the backup as listed, for that backup only', async () => {
    const { cookie, id } = await ownerWithServer();
    const other = await ownerWithServer();
    const [listed] = (await backUp(cookie, id)).backups;
    const [othersBackup] = (await backUp(other.cookie, other.id)).backups;
    if (!listed || !othersBackup) throw new Error('no backup listed');

    const answer = await send('GET', `/v1/server/${id}/backups/${listed.backupId}/download`, cookie);
    expect(answer.statusCode).toBe(302);
    const link = String(answer.headers.location);
    expect(link.startsWith(`${agent.nodeConfig.url}/v1/downloads/${id}/backups/${listed.backupId}?`)).toBe(true);
    // Followed as a browser does, without the session cookie: the bytes the list describes, named after the server.
    const res = await fetch(link, { redirect: 'error' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[a-z0-9-]+-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.tar\.gz"$/);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(listed.size);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(listed.sha256);

    // The link opens that backup of that server only, and only as a backup.
    const changed = async (edit: (url: URL) => void) => {
      const url = new URL(link);
      edit(url);
      return (await fetch(url)).status;
    };
    expect(
      await changed(
        (u) => (u.pathname = u.pathname.replace(`${id}/backups/${listed.backupId}`, `${other.id}/backups/${othersBackup.backupId}`)),
      ),
    ).toBe(403);
    expect(await changed((u) => (u.pathname = u.pathname.replace(listed.backupId, othersBackup.backupId)))).toBe(403);
    expect(
      await changed((u) => {
        u.pathname = `/v1/downloads/${id}/file`;
        u.searchParams.set('path', listed.backupId);
      }),
    ).toBe(403);

    // No link for a stranger, for another server's backup named under one's own server, or signed out.
    for (const [url, who, status] of [
      [`/v1/server/${id}/backups/${listed.backupId}/download`, other.cookie, 'NOT_FOUND'],
      [`/v1/server/${id}/backups/${othersBackup.backupId}/download`, cookie, 'NOT_FOUND'],
      [`/v1/server/${id}/backups/${listed.backupId}/download`, undefined, 'NOT_AUTHENTICATED'],
    ] as const) {
      const refused = await send('GET', url, who);
      expect([refused.json().status, refused.headers.location], url).toEqual([status, undefined]);
    }
  });
});

describe('backups under failure', () => {
  it('rotates only after a new backup completed: a failing backup keeps every old one', async () => {
    const { cookie, id, store } = await ownerWithServer();
    for (let i = 0; i < FREE_BACKUP_LIMIT; i++) await backUp(cookie, id);
    const before = (await list(cookie, id)).backups.map((b) => b.backupId);
    expect(before).toHaveLength(FREE_BACKUP_LIMIT);

    // The node cannot write the next backup (its storage refuses even root).
    execFileSync('chattr', ['+i', store]);
    try {
      const failed = await backUp(cookie, id);
      expect(failed.backups.map((b) => b.backupId)).toEqual(before);
      for (const backupId of before) expect(existsSync(path.join(store, `${backupId}.tar.gz`))).toBe(true);
    } finally {
      execFileSync('chattr', ['-i', store]);
    }

    // A backup that completes rotates the oldest out.
    const after = (await backUp(cookie, id)).backups.map((b) => b.backupId);
    expect(after).toHaveLength(FREE_BACKUP_LIMIT);
    expect(after).not.toContain(before[before.length - 1]); // listed newest first: the last is the oldest
    expect(after.slice(1)).toEqual(before.slice(0, FREE_BACKUP_LIMIT - 1));
    await until(
      () => existsSync(path.join(store, `${before[before.length - 1]}.tar.gz`)),
      (exists) => !exists,
    );
  });

  it('refuses a new backup when every kept backup is locked', async () => {
    const { cookie, id } = await ownerWithServer();
    for (let i = 0; i < FREE_BACKUP_LIMIT; i++) await backUp(cookie, id);
    for (const b of (await list(cookie, id)).backups)
      expect((await send('POST', `/v1/server/${id}/backups/${b.backupId}/lock`, cookie, { locked: true })).json().status).toBe('SUCCESS');
    const refused = await send('POST', `/v1/server/${id}/backups`, cookie, {});
    expect(refused.json()).toMatchObject({
      status: 'INVALID_STATE',
      message: `All ${FREE_BACKUP_LIMIT} backups are locked. Unlock or delete one first.`,
    });
    expect((await list(cookie, id)).running).toBe(false);
  });

  it('settles a backup the node was making when its agent died, so the server can back up again', async () => {
    const { cookie, id, folder } = await ownerWithServer();
    // Written as the game would (not through the file manager): incompressible, so the backup takes a while.
    mkdirSync(path.join(folder, 'world'), { recursive: true });
    const fd = openSync(path.join(folder, 'world', 'region.bin'), 'w');
    for (let i = 0; i < 48; i++) writeSync(fd, randomBytes(4 * 1024 * 1024));
    closeSync(fd);
    expect((await send('POST', `/v1/server/${id}/backups`, cookie, {})).json().status).toBe('SUCCESS');
    await until(
      () => list(cookie, id),
      (l) => l.running && (l.pending?.percent ?? 0) > 0,
    );
    await agent.crash();
    agent.start(base);
    await nodeConnected();
    const settled = await idle(cookie, id);
    expect(settled.pending).toBeNull();
    expect(settled.backups).toEqual([]);
    // Nothing stands in the way of the next one (once the new agent has been told about the server again).
    await until(
      async () => (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().status,
      (s) => s === 'SUCCESS',
    );
    expect((await backUp(cookie, id)).backups).toHaveLength(1);
    // 192 MB written, packed, an agent killed and started again, a second backup: more than the default
    // 30 s when the machine is busy.
  }, 90_000);

  it('gives up a backup whose node stays away, so it does not show as running for ever', async () => {
    const { cookie, id, folder } = await ownerWithServer();
    mkdirSync(path.join(folder, 'world'), { recursive: true });
    const fd = openSync(path.join(folder, 'world', 'region.bin'), 'w');
    for (let i = 0; i < 48; i++) writeSync(fd, randomBytes(4 * 1024 * 1024));
    closeSync(fd);
    const backups = t.ctx.game.backups;
    const waited = backups.nodeGoneMs;
    backups.nodeGoneMs = 500;
    try {
      expect((await send('POST', `/v1/server/${id}/backups`, cookie, {})).json().status).toBe('SUCCESS');
      await until(
        () => list(cookie, id),
        (l) => l.running && (l.pending?.percent ?? 0) > 0,
      );
      // The node goes away and does not come back (here: within the shortened wait).
      await agent.crash();
      const settled = await idle(cookie, id);
      expect(settled.pending).toBeNull();
      expect(settled.backups).toEqual([]);
      // What stands in the way now is the node, said as such, not a backup "already running".
      expect((await send('POST', `/v1/server/${id}/backups`, cookie, {})).json().status).toBe('NODE_UNAVAILABLE');
    } finally {
      backups.nodeGoneMs = waited;
      agent.start(base);
      await nodeConnected();
    }
  }, 90_000);

  it("keeps a complete backup that a failure is reported for afterwards (a node's report can cross its hello)", async () => {
    const { cookie, id } = await ownerWithServer();
    const [made] = (await backUp(cookie, id)).backups;
    if (!made) throw new Error('no backup listed');
    // As the settling after a node's hello reported it when the completion committed between its read and
    // its report (seen on PostgreSQL): the complete backup was deleted.
    t.ctx.game.hub.intake.backup('test-node', {
      serverId: id,
      backupId: made.backupId,
      phase: 'failed',
      bytes: 0,
      totalBytes: 0,
      error: 'late',
    });
    // The next backup is listed beside it, whole.
    const after = await backUp(cookie, id);
    expect(after.backups.map((b) => b.backupId)).toEqual(expect.arrayContaining([made.backupId]));
    expect(after.backups).toHaveLength(2);
    expect(after.backups.find((b) => b.backupId === made.backupId)?.sha256).toBe(made.sha256);
  });

  it('acknowledges how a backup ended only once it is recorded, so the node keeps it until then', async () => {
    const { cookie, id } = await ownerWithServer();
    // A backup the node was making while another API process ran (its row is pending): its end comes now.
    const backupId = `late${Date.now().toString(36)}`;
    await t.ctx.database.db.insert(backups).values({ id: backupId, serverId: id, status: 'pending' });
    const listedAtAck = await new Promise<Listing>((resolve) =>
      t.ctx.game.hub.intake.backup(
        'test-node',
        { serverId: id, backupId, phase: 'complete', bytes: 10, totalBytes: 10, size: 10, sha256: 'a'.repeat(64) },
        () => void list(cookie, id).then(resolve),
      ),
    );
    expect(listedAtAck.backups.map((b) => b.backupId)).toEqual([backupId]);
    // Sent again (the acknowledgement was lost): recorded once, acknowledged again.
    await new Promise<void>((resolve) =>
      t.ctx.game.hub.intake.backup(
        'test-node',
        { serverId: id, backupId, phase: 'complete', bytes: 10, totalBytes: 10, size: 10, sha256: 'a'.repeat(64) },
        resolve,
      ),
    );
    expect((await list(cookie, id)).backups).toHaveLength(1);
  });

  it('keeps how a backup ended through an agent restart, until the API has recorded it', async () => {
    const { cookie, id, store } = await ownerWithServer();
    // The API does not hear the backup's end (as if it died just then), and the agent restarts before it does.
    const onBackup = t.ctx.game.hub.intake.onBackup;
    let missed = false;
    t.ctx.game.hub.intake.onBackup = (event, saved) => {
      if (!missed && event.phase !== 'running') return void (missed = true);
      onBackup?.(event, saved);
    };
    try {
      expect((await send('POST', `/v1/server/${id}/backups`, cookie, {})).json().status).toBe('SUCCESS');
      await until(
        async () => missed,
        (m) => m,
      );
    } finally {
      t.ctx.game.hub.intake.onBackup = onBackup;
    }
    await agent.crash();
    agent.start(base);
    await nodeConnected();
    // The new agent still lists the backup in its hello, then sends how it ended: listed, whole.
    const listed = await idle(cookie, id);
    expect(listed.pending).toBeNull();
    expect(listed.backups).toHaveLength(1);
    const [backup] = listed.backups;
    expect(
      createHash('sha256')
        .update(readFileSync(path.join(store, `${backup?.backupId}.tar.gz`)))
        .digest('hex'),
    ).toBe(backup?.sha256);
  });

  it('restores while holding the power line: a start sent at the same time waits, and the restored files are there', async () => {
    const { cookie, id } = await ownerWithServer();
    const write = (content: string) => send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/note.txt', content });
    await write('from the backup');
    const [kept] = (await backUp(cookie, id)).backups;
    await write('changed since');
    const [restored, started] = await Promise.all([
      send('POST', `/v1/server/${id}/backups/${kept?.backupId}/restore`, cookie, {}),
      send('POST', `/v1/server/${id}/start`, cookie, {}),
    ]);
    // The restore is a job: answered at once, over once the backup list no longer says it runs.
    expect(restored.json()).toMatchObject({ status: 'SUCCESS', result: { restoring: kept?.backupId } });
    expect(started.json().status).toBe('SUCCESS');
    const restoreDone = () =>
      until(
        async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result.running,
        (running) => running === false,
        60_000,
      );
    await restoreDone();
    await until(
      async () => (await send('GET', `/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'online',
    );
    expect((await send('GET', `/v1/server/${id}/files/content?path=/note.txt`, cookie)).json().result.content).toBe('from the backup');
    // Restoring a running server stops it, restores, and tells the server's pages each step and that it is
    // running again.
    const events: BackupRestoreEvent[] = [];
    const restore = t.ctx.game.hub.relay.restore.bind(t.ctx.game.hub.relay);
    t.ctx.game.hub.relay.restore = (event) => {
      events.push(event);
      restore(event);
    };
    const again = (await send('POST', `/v1/server/${id}/backups/${kept?.backupId}/restore`, cookie, {})).json();
    expect(again).toMatchObject({ status: 'SUCCESS', result: { restoring: kept?.backupId } });
    await until(
      () => events.at(-1)?.phase,
      (phase) => phase === 'complete',
      60_000,
    );
    expect(events.map((e) => e.step ?? e.phase)).toEqual(['stopping', 'restoring', 'starting', 'complete']);
    expect(events.at(-1)).toMatchObject({ serverId: id, backupId: kept?.backupId, started: true });
    await restoreDone();
    expect((await send('GET', `/v1/server/${id}`, cookie)).json().result.state).toBe('online');
    await send('POST', `/v1/server/${id}/kill`, cookie, {});
  });
});

type BackupList = { backups: { backupId: string }[]; running: boolean; pending: { backupId: string; percent: number } | null };

describe('the backup list follows a running backup (a page opened midway takes the job from it)', () => {
  it('names the backup being made with its progress, and lists it complete the moment the job is over', async () => {
    const { cookie, id } = await ownerWithServer();
    // Random bytes do not compress: the backup takes long enough to be seen running.
    await writeFile(path.join(agent.dataDir, 'servers', id, 'noise.bin'), randomBytes(96 * 1024 * 1024));
    const { backupId } = (await send('POST', `/v1/server/${id}/backups`, cookie, {})).json().result;

    const seen: BackupList['pending'][] = [];
    const over = await until(
      async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result as BackupList,
      (list) => {
        if (list.running) seen.push(list.pending);
        return !list.running;
      },
      60_000,
    );
    expect(seen.length).toBeGreaterThan(0);
    for (const pending of seen) expect(pending?.backupId).toBe(backupId);
    expect(Math.max(...seen.map((p) => p?.percent ?? 0))).toBeGreaterThan(0);
    // Not running means finished and recorded: never "not running" while the backup is not listed yet.
    expect(over.pending).toBeNull();
    expect(over.backups.map((b) => b.backupId)).toEqual([backupId]);
  });
});
