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
  // The suite polls one process from one address for minutes on a busy machine: limits are not what it
  // tests, and a spent per-address budget would fail every suite after it.
  api = await prepareApiProcess({ AGENTS: JSON.stringify([agent.nodeConfig]), RATE_LIMIT_FACTOR: '100' });
  await api.start();
  agent.start(api.base);
  await nodeBack();
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

/** A new owner (signed in from now on) with a new server whose folder the node has installed. */
async function newServer(): Promise<string> {
  // The node dials whichever process is up: it must have said hello to this one before a server is placed.
  await nodeBack();
  await api.signUpVerified();
  const created = await api.call('POST', '/v1/server/create', { serverName: uniqueServerName('rel') });
  if (created.status !== 'SUCCESS') throw new Error(`create: ${JSON.stringify(created)}`);
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
      (p) => p?.running === false && p.backups.length === 1,
      120_000,
      500,
    );
    const [backup] = page.backups;
    // The archive the node stored is the one listed, whole.
    const file = path.join(agent.dataDir, 'storage', 'backups', id, `${backup.backupId}.tar.gz`);
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(backup.sha256);
    expect(backup.size).toBeGreaterThan(160 * 1024 * 1024);
    // And the server backs up again as usual.
    expect((await api.call('POST', `/v1/server/${id}/backups`, {})).status).toBe('SUCCESS');
  });

  it('the API killed among purchases: money moved exactly for what was delivered, nothing acknowledged lost, replays charge nothing', async () => {
    const id = await newServer();
    const billing = { name: 'Ada Lovelace', addressLine1: '12 Analytical Row', postalCode: 'NW1 4RY', city: 'London', country: 'gb' };
    expect((await api.call('PUT', '/v1/user/billing', billing)).status).toBe('SUCCESS');
    const topup = await api.call('POST', '/v1/user/topups', {
      amountCents: 2000,
      idempotencyKey: `topup-${randomBytes(8).toString('hex')}`,
    });
    expect((await api.call('POST', `/v1/payments/sandbox/${topup.result.paymentId}`, { outcome: 'pay' })).status).toBe('SUCCESS');
    const shop = async () => {
      const result = (await api.call('GET', `/v1/server/${id}/shop`)).result;
      return {
        balance: result.balanceCents as number,
        slots: (result.items as { id: string; owned: number }[]).find((i) => i.id === 'backup-slot')?.owned ?? 0,
      };
    };
    const before = await shop();
    expect(before).toEqual({ balance: 2000, slots: 0 });
    // Ten purchases at once, each with its own key; the process dies as soon as the first is answered.
    const keys = Array.from({ length: 10 }, () => `slot-${randomBytes(8).toString('hex')}`);
    const buy = (key: string) => api.call('POST', `/v1/server/${id}/shop`, { itemId: 'backup-slot', idempotencyKey: key });
    let acknowledged = 0;
    let killed: Promise<void> | null = null;
    const burst = keys.map((key) =>
      buy(key).then(
        (answer) => {
          if (answer.status === 'SUCCESS') acknowledged++;
          killed ??= api.kill();
        },
        () => undefined,
      ),
    );
    await Promise.all(burst);
    await (killed ?? api.kill());
    await api.start();
    const after = await shop();
    // Whatever the kill cut short left no trace: every slot owned was paid for, every answered one is owned.
    expect(before.balance - after.balance).toBe(99 * after.slots);
    expect(after.slots).toBeGreaterThanOrEqual(acknowledged);
    // The buyer, not knowing what went through, sends them all again: each key is bought once in all.
    for (const key of keys) expect((await buy(key)).status).toBe('SUCCESS');
    expect(await shop()).toEqual({ balance: 2000 - 99 * 10, slots: 10 });
  });

  it('the API killed among invitation accepts: each invitee is a member once or may still accept, never half of it', async () => {
    const id = await newServer();
    const owner = api.cookie();
    const friends: { cookie: string; emailAddress: string }[] = [];
    for (let i = 0; i < 5; i++) friends.push(await api.signUpVerified());
    const tokens: string[] = [];
    for (const friend of friends) {
      const invited = await api.call(
        'POST',
        `/v1/server/${id}/invitations`,
        { emailAddress: friend.emailAddress, role: 'moderator' },
        owner,
      );
      expect(invited.status).toBe('SUCCESS');
      tokens.push(await api.mailedToken(friend.emailAddress, 'invite_token'));
    }
    // All five accept at once; the process dies as soon as the first is answered.
    const accept = (i: number) => api.call('POST', '/v1/server/invite', { token: tokens[i] }, friends[i]?.cookie);
    const answered = new Set<number>();
    let killed: Promise<void> | null = null;
    await Promise.all(
      friends.map((_, i) =>
        accept(i).then(
          (answer) => {
            if (answer.status === 'SUCCESS') answered.add(i);
            killed ??= api.kill();
          },
          () => undefined,
        ),
      ),
    );
    await (killed ?? api.kill());
    await api.start();
    const sees = async (i: number) =>
      ((await api.call('GET', '/v1/user/servers', undefined, friends[i]?.cookie)).result as { serverId: string }[]).some(
        (s) => s.serverId === id,
      );
    for (let i = 0; i < friends.length; i++) {
      // An accept that was answered holds; any other either went through whole or can be made again.
      if (answered.has(i)) expect(await sees(i)).toBe(true);
      if (!(await sees(i))) expect((await accept(i)).status).toBe('SUCCESS');
      expect(await sees(i)).toBe(true);
    }
    const members = (await api.call('GET', `/v1/server/${id}/members`, undefined, owner)).result;
    expect(members.members.filter((m: { role: string }) => m.role === 'moderator')).toHaveLength(5);
    expect(members.invitations).toEqual([]);
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
