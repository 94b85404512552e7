import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AGENT_NAMESPACE, agentEndpoints, DOWNLOAD_LINK_SECONDS, linkSigner, fillPath } from '@spawnpoint/contracts';
import { Server } from 'socket.io';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../../test-support/until.ts';
import { createAgent, type Agent } from '../agent.ts';
import { ApiClock } from './api-clock.ts';
import { loadAgentConfig } from '../config.ts';

/**
 * Clocks skewed by minutes (many machines, "bad input"): the API's clock is ten minutes behind this node's.
 * The node learns the API's time when it connects and checks the links the API signed against it.
 */
const SKEW_MS = -10 * 60_000;
const token = randomBytes(24).toString('hex');
let dataDir: string;
let agent: Agent;
let base: string;
let io: Server;
let told = 0;
const warnings: number[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-agent-clock-'));
  // The API, as far as this node can tell: it sends its time to a node that connects, as the real one does.
  const http = createServer();
  io = new Server(http);
  io.of(AGENT_NAMESPACE).on('connection', (socket) => {
    socket.emit('api:clock', { now: Date.now() + SKEW_MS });
    told++;
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  agent = await createAgent(
    loadAgentConfig({ AGENT_TOKEN: token, AGENT_PORT: '0', DATA_DIR: dataDir, API_URL: apiUrl, LOG_LEVEL: 'silent' }),
  );
  base = `http://127.0.0.1:${(agent.http.server.address() as AddressInfo).port}`;
  await until(
    () => told,
    (n) => n > 0,
  );
});
afterAll(async () => {
  await agent.close();
  io.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("a node whose clock is off the API's", () => {
  it("accepts a link the API signed a moment ago and refuses one that expired in the API's time", async () => {
    const installed = await fetch(`${base}/v1/servers/clock1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        serverId: 'clock1',
        software: 'flying-squid',
        version: '1.21.4',
        port: 41999,
        memoryMb: 512,
        diskMb: 64,
        maxPlayers: 5,
        motd: 'x',
      }),
    });
    expect(installed.status).toBe(200);
    writeFileSync(path.join(dataDir, 'servers', 'clock1', 'notes.txt'), 'hello');
    const signer = linkSigner(token);
    const link = async (expires: number) => {
      const grant = { purpose: 'file-download' as const, serverId: 'clock1', subject: '/notes.txt', name: 'notes.txt', expires };
      const signature = await signer.sign(grant);
      return `${base}${fillPath(agentEndpoints.signedFileDownload.path, { serverId: 'clock1' }, { path: '/notes.txt', name: 'notes.txt', expires, signature })}`;
    };
    const apiSeconds = Math.floor((Date.now() + SKEW_MS) / 1000);
    // Made by the API 20 s ago in its time: ten minutes stale by this node's own clock, yet still good.
    const fresh = await fetch(await link(apiSeconds - 20 + DOWNLOAD_LINK_SECONDS));
    expect(fresh.status).toBe(200);
    expect(await fresh.text()).toBe('hello');
    // Expired a second ago in the API's time (nine minutes ahead by this node's clock): refused.
    const stale = await fetch(await link(apiSeconds - 1));
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as { message: string }).message).toMatch(/expired/);
  });

  it('says in its log how far off its clock is, and ignores a malformed clock event', () => {
    let local = 1_000_000;
    const clock = new ApiClock(
      (offset) => warnings.push(offset),
      () => local,
    );
    clock.learn({ now: local + 5_000 });
    expect(clock.now()).toBe(local + 5_000);
    expect(warnings).toEqual([]);
    clock.learn({ now: local - 120_000 });
    expect(warnings).toEqual([-120_000]);
    clock.learn({ now: 'soon' });
    local += 1_000;
    expect(clock.now()).toBe(local - 120_000);
  });
});
