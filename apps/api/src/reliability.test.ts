import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { prepareAgent, type AgentProcess } from './test/agent-process.ts';
import { prepareApiProcess } from './test/api-process.ts';
import { multipart, uniqueServerName } from './test/build-test-app.ts';

/**
 * The reliability suite (many machines, item 4): real processes killed with SIGKILL at chosen points. After
 * each, nothing half-done is visible, nothing acknowledged is lost, and the service carries on by itself.
 * (The agent killed while a folder goes to or comes from storage: servers/sleeping-storage.test.ts; the
 * agent killed mid-backup: routes/backups.test.ts; the API killed after acknowledging writes:
 * durability.test.ts.)
 */
let api: Awaited<ReturnType<typeof prepareApiProcess>>;
let agent: AgentProcess;

beforeAll(async () => {
  agent = await prepareAgent();
  api = await prepareApiProcess({ AGENTS: JSON.stringify([agent.nodeConfig]) });
  await api.start();
  agent.start(api.base);
  await nodeBack();
  await api.signUpVerified();
}, 120_000);
afterAll(async () => {
  await api?.cleanup();
  await agent?.stop();
});

/** The node has said hello to the (new) API process. */
const nodeBack = () =>
  until(
    async () => (await api.call('GET', '/healthz')).result?.agents as string[] | undefined,
    (agents) => agents?.includes(agent.nodeConfig.id) === true,
    60_000,
  );

async function newServer(): Promise<string> {
  const created = await api.call('POST', '/v1/server/create', { serverName: uniqueServerName('rel') });
  const id = created.result.serverId as string;
  await until(
    async () => (await api.call('GET', `/v1/server/${id}/files/list?path=/`)).status,
    (s) => s === 'SUCCESS',
  );
  return id;
}

/** An incompressible file of `mb` MB written into the server's folder as the game would, and its digest. */
function bigFile(id: string, name: string, mb: number): string {
  const dir = path.join(agent.dataDir, 'servers', id, 'world');
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256');
  const fd = openSync(path.join(dir, name), 'w');
  for (let i = 0; i < mb / 4; i++) {
    const chunk = randomBytes(4 * 1024 * 1024);
    hash.update(chunk);
    writeSync(fd, chunk);
  }
  closeSync(fd);
  return hash.digest('hex');
}

describe('reliability: processes killed midway', { timeout: 180_000 }, () => {
  it('the API killed while its node makes a backup: once a new process is up, the backup is listed complete', async () => {
    const id = await newServer();
    bigFile(id, 'region.bin', 160);
    expect((await api.call('POST', `/v1/server/${id}/backups`, {})).status).toBe('SUCCESS');
    await until(
      async () => (await api.call('GET', `/v1/server/${id}/backups`)).result,
      (page) => page.running && page.pending?.percent > 0,
    );
    await api.kill();
    await api.start();
    await nodeBack();
    const page = await until(
      async () => (await api.call('GET', `/v1/server/${id}/backups`)).result,
      (p) => !p.running && p.backups.length === 1,
      120_000,
    );
    const [backup] = page.backups;
    // The archive the node stored is the one listed, whole.
    const file = path.join(agent.dataDir, 'storage', 'backups', id, `${backup.backupId}.tar.gz`);
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(backup.sha256);
    expect(backup.size).toBeGreaterThan(160 * 1024 * 1024);
    // And the server backs up again as usual.
    expect((await api.call('POST', `/v1/server/${id}/backups`, {})).status).toBe('SUCCESS');
  });

  it('the API killed during an upload: no half file anywhere, and the same upload works afterwards', async () => {
    const id = await newServer();
    const form = multipart('big.bin', Buffer.alloc(0));
    const cut = new Promise<void>((resolve) => {
      const req = request(`${api.base}/v1/server/${id}/files/upload?path=/big.bin`, {
        method: 'POST',
        headers: { cookie: api.cookie(), origin: api.base, ...form.headers },
      });
      req.on('error', () => resolve());
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.write(form.head);
      let sent = 0;
      const more = () => {
        // 32 MB sent, then the process dies with the rest on its way.
        if (sent >= 32) return void api.kill();
        sent++;
        if (req.write(randomBytes(1024 * 1024))) setImmediate(more);
        else req.once('drain', more);
      };
      more();
    });
    await cut;
    await api.start();
    await nodeBack();
    const names = (await api.call('GET', `/v1/server/${id}/files/list?path=/`)).result.map((e: { name: string }) => e.name);
    expect(names).not.toContain('big.bin');
    // Not under another name either: the node discarded what it had received.
    await until(
      () => readdirSync(path.join(agent.dataDir, 'servers', id)).filter((n) => n.includes('big')),
      (left) => left.length === 0,
    );
    const again = multipart('big.bin', randomBytes(3 * 1024 * 1024));
    const res = await fetch(`${api.base}/v1/server/${id}/files/upload?path=/big.bin`, {
      method: 'POST',
      headers: { cookie: api.cookie(), origin: api.base, ...again.headers },
      body: again.payload,
    });
    expect(await res.json()).toEqual({ status: 'SUCCESS', result: null });
    expect(existsSync(path.join(agent.dataDir, 'servers', id, 'big.bin'))).toBe(true);
  });
});
