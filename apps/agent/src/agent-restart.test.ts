import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ping } from 'minecraft-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';
import { serviceArgs } from '../../../test-support/service-command.ts';
import { statusText } from '../../../test-support/status-text.ts';

// An agent restart leaves running servers running (docs/design.md, Game servers on a node). The agent runs
// as a real process (`main.ts`), is stopped the way a service manager restarts it (SIGTERM), and a new one
// takes over.
const root = path.resolve(import.meta.dirname, '../../..');
const token = randomBytes(24).toString('hex');
let dataDir: string;
let agentPort: number;
let agent: ChildProcess | null = null;

function startAgent(): ChildProcess {
  const child = spawn(process.execPath, serviceArgs('agent'), {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      AGENT_TOKEN: token,
      AGENT_PORT: String(agentPort),
      DATA_DIR: dataDir,
      API_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'warn',
    },
  });
  agent = child;
  return child;
}

async function stopAgent(signal: NodeJS.Signals): Promise<void> {
  const child = agent;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

async function call(method: string, url: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${agentPort}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await response.json()) as { status: string; result?: unknown };
}

/** Installs a built-in-runtime server on the agent (retrying while the agent is still starting). */
async function install(serverId: string, motd: string): Promise<number> {
  const port = await freePort();
  const spec = { serverId, software: 'flying-squid', version: '1.21.4', port, memoryMb: 512, diskMb: 1024, maxPlayers: 5, motd };
  await until(
    () => call('PUT', `/v1/servers/${serverId}`, spec).catch(() => ({ status: 'DOWN' })),
    (r) => r.status === 'SUCCESS',
  );
  return port;
}

const stateOf = async (id: string) =>
  ((await call('GET', '/v1/servers').catch(() => ({ result: [] }))).result as { serverId: string; state: string }[]).find(
    (s) => s.serverId === id,
  )?.state;
const consoleOf = async (id: string) => ((await call('GET', `/v1/servers/${id}/console`)).result as { lines: string[] }).lines.join('\n');

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-agent-restart-'));
  agentPort = await freePort();
});
afterAll(async () => {
  await stopAgent('SIGINT');
  await rm(dataDir, { recursive: true, force: true });
});

describe('agent restart', () => {
  it('leaves a running server running, and the next agent adopts it: console, commands and stop work', async () => {
    startAgent();
    const gamePort = await install('keep1', 'Still here');
    await call('POST', '/v1/servers/keep1/power', { action: 'start' });
    await until(
      () => stateOf('keep1'),
      (s) => s === 'online',
    );

    await stopAgent('SIGTERM');
    // No agent at all: players can still reach the server.
    const status = (await ping({ host: '127.0.0.1', port: gamePort })) as { description: { text: string } };
    expect(statusText(status.description)).toBe('Still here');

    startAgent();
    await until(
      () => stateOf('keep1'),
      (s) => s === 'online',
    );
    expect(await consoleOf('keep1')).toContain('The node agent restarted; the server kept running.');
    expect((await call('POST', '/v1/servers/keep1/command', { command: 'say after the restart' })).status).toBe('SUCCESS');
    await until(
      () => consoleOf('keep1'),
      (c) => c.includes('[Server] after the restart'),
    );

    // A graceful stop still saves and ends it, and the server is offline for the agent.
    expect((await call('POST', '/v1/servers/keep1/power', { action: 'stop' })).status).toBe('SUCCESS');
    await until(
      () => stateOf('keep1'),
      (s) => s === 'offline',
    );
    expect(await consoleOf('keep1')).toContain('The server stopped.');
    await expect(ping({ host: '127.0.0.1', port: gamePort, closeTimeout: 2000 })).rejects.toThrow();
  });

  it('notices a server that ended while no agent was watching, and marks it offline', async () => {
    await install('gone1', 'Gone');
    await call('POST', '/v1/servers/gone1/power', { action: 'start' });
    await until(
      () => stateOf('gone1'),
      (s) => s === 'online',
    );
    await stopAgent('SIGTERM');
    // The server ends while the agent is away (a node operator stopped it, or it crashed).
    const record = JSON.parse(
      await import('node:fs/promises').then((fs) => fs.readFile(path.join(dataDir, 'run/gone1/process.json'), 'utf8')),
    ) as { pid: number };
    process.kill(record.pid, 'SIGKILL');
    await until(
      () => {
        try {
          process.kill(record.pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      (gone) => gone,
    );
    startAgent();
    await until(
      () => call('GET', '/v1/servers').catch(() => null),
      (r) => r?.status === 'SUCCESS',
    );
    // Not adopted: the API's next install makes it known again, offline.
    expect(await stateOf('gone1')).toBeUndefined();
  });

  it('a game that fills its own console input stops the next agent from nothing: it is adopted, told it cannot take commands, and stopped', async () => {
    await install('full1', 'Full');
    await call('POST', '/v1/servers/full1/power', { action: 'start' });
    await until(
      () => stateOf('full1'),
      (s) => s === 'online',
    );
    // What a plugin can do: stop reading the console input and fill the pipe (it is the game's own fd 0).
    // Here the game is paused and the test fills the pipe.
    const { constants, openSync, writeSync, closeSync, readFileSync } = await import('node:fs');
    const { pid } = JSON.parse(readFileSync(path.join(dataDir, 'run/full1/process.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGSTOP');
    const pipe = openSync(path.join(dataDir, 'run/full1/stdin'), constants.O_WRONLY | constants.O_NONBLOCK);
    try {
      for (;;) writeSync(pipe, Buffer.alloc(4096, 0x61));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('EAGAIN');
    } finally {
      closeSync(pipe);
    }
    const refused = await call('POST', '/v1/servers/full1/command', { command: 'say hello' });
    expect(refused).toMatchObject({
      status: 'INVALID_STATE',
      message: 'The server is not reading its console input, so the command could not be sent.',
    });

    // An agent restart adopts it (its first command to an adopted game used to throw and end the agent).
    await stopAgent('SIGTERM');
    startAgent();
    await until(
      () => stateOf('full1'),
      (s) => s === 'online',
    );
    // Stop cannot be sent, so the server is asked to end by signal rather than left "stopping" for ever (the
    // game, paused here, takes the signal once it runs again).
    expect((await call('POST', '/v1/servers/full1/power', { action: 'stop' })).status).toBe('SUCCESS');
    await until(
      () => consoleOf('full1'),
      (c) => c.includes('so the command could not be sent. It was asked to end instead.'),
    );
    process.kill(pid, 'SIGCONT');
    await until(
      () => stateOf('full1'),
      (s) => s === 'offline',
    );
  });
});
