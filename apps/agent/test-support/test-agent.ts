import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createAgent, type Agent, type AgentOptions } from '../src/agent.ts';
import { loadAgentConfig } from '../src/config.ts';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';

export interface TestAgent {
  agent: Agent;
  dataDir: string;
  base: string;
  token: string;
  /** A JSON call to the agent's HTTP API with the node token (or `auth` instead). */
  call(method: string, url: string, body?: unknown, auth?: string): Promise<{ status: number; body: AgentAnswer }>;
  close(): Promise<void>;
}

export interface AgentAnswer {
  status: string;
  result?: unknown;
  message?: string;
}

/** A real agent in this process, in a fresh DATA_DIR, with no API to report to. */
export async function startTestAgent(prefix: string, options: AgentOptions = {}, env: Record<string, string> = {}): Promise<TestAgent> {
  const token = randomBytes(24).toString('hex');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `spawnpoint-${prefix}-`));
  const agent = await createAgent(
    loadAgentConfig({
      AGENT_TOKEN: token,
      AGENT_PORT: '0',
      DATA_DIR: dataDir,
      API_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'silent',
      STOP_TIMEOUT_SECONDS: '20',
      // Never Adoptium itself: a test that needs a Java download serves one (vendor-stub.ts).
      SOFTWARE_MIRROR_ADOPTIUM: 'http://127.0.0.1:9',
      ...env,
    }),
    options,
  );
  const base = `http://127.0.0.1:${(agent.http.server.address() as AddressInfo).port}`;
  return {
    agent,
    dataDir,
    base,
    token,
    async call(method, url, body, auth = token) {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${auth}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: (await response.json()) as AgentAnswer };
    },
    async close() {
      await agent.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The spec of a small Java server on a free port, as the API sends it: 1.20.4 (it runs on Java 17, the Java
 * every development machine here has), its EULA accepted unless `eulaAccepted` says otherwise.
 */
export async function javaServerSpec(serverId: string, software: 'paper' | 'purpur' | 'vanilla', eulaAccepted = true) {
  const port = await freePort();
  return { serverId, software, version: '1.20.4', port, memoryMb: 256, diskMb: 1024, maxPlayers: 5, motd: 'J', eulaAccepted };
}

/**
 * Installs a built-in (flying-squid 1.21.4) server on a free port, as the API does before a start, and
 * answers the port. Throws with the agent's words when the install is refused.
 */
export async function installBuiltin(
  t: TestAgent,
  serverId: string,
  { motd = `Test ${serverId}`, memoryMb = 512 }: { motd?: string; memoryMb?: number } = {},
): Promise<number> {
  const port = await freePort();
  const res = await t.call('PUT', `/v1/servers/${serverId}`, {
    serverId,
    software: 'flying-squid',
    version: '1.21.4',
    port,
    memoryMb,
    diskMb: 1024,
    maxPlayers: 5,
    motd,
  });
  if (res.body.status !== 'SUCCESS') throw new Error(`installing ${serverId} answered ${JSON.stringify(res.body)}`);
  return port;
}

/**
 * Starts an installed server and waits until it is online or offline again, collecting each state it passed
 * through in order (a start that downloads its software or Java first shows `installing`).
 */
export async function startUntilSettled(t: TestAgent, serverId: string, timeoutMs = 60_000): Promise<string[]> {
  const server = t.agent.servers.get(serverId);
  const states: string[] = [];
  const answer = await t.call('POST', `/v1/servers/${serverId}/power`, { action: 'start' });
  if (answer.body.status !== 'SUCCESS') throw new Error(`start of ${serverId} answered ${JSON.stringify(answer.body)}`);
  await until(
    () => {
      const s = server?.state;
      if (s && states.at(-1) !== s) states.push(s);
      return s;
    },
    (s) => s === 'online' || s === 'offline',
    timeoutMs,
  );
  return states;
}
