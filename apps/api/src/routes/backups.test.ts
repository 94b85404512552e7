import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../db/schema.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, cookieFrom, uniqueEmail, uniqueIp } from '../test/build-test-app.ts';
import { until } from '../../../../test-support/until.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;

beforeAll(async () => {
  agent = await prepareAgent();
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  agent.start(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
  await until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
});
afterAll(async () => {
  await t.cleanup();
  await agent.stop();
});

function send(method: 'GET' | 'POST', url: string, cookie?: string, payload?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: cookie ? { cookie } : {},
    ...(payload !== undefined ? { payload: payload as string } : {}),
    remoteAddress: uniqueIp(),
  });
}

async function ownerWithServer() {
  const res = await send('POST', '/v1/auth/register', undefined, {
    emailAddress: uniqueEmail('backups'),
    password: 'long enough password',
  });
  const userId = res.json().result.userId;
  await t.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  t.ctx.sessions.forgetUser(userId);
  const cookie = cookieFrom(res.headers['set-cookie']);
  const server = (await send('POST', '/v1/server/create', cookie, { serverName: `b${Date.now().toString(36).slice(-8)}` })).json().result;
  await until(
    async () => (await send('GET', `/v1/server/${server.serverId}/files/list?path=/`, cookie)).json().status,
    (s) => s === 'SUCCESS',
  );
  return { cookie, id: server.serverId as string };
}

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
