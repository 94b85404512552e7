import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';

// The API as a real process (`main.ts`), with a preloaded module that provokes the failures a bug
// reached by user input would cause.
const root = path.resolve(import.meta.dirname, '../../..');
let dataDir = '';
let api: ChildProcess;
let port = 0;
let output = '';

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-main-'));
  port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    APP_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'info',
    // The assertions read pino's JSON lines.
    LOG_FORMAT: 'json',
    WEB_DIST: path.join(dataDir, 'no-web-build'),
  };
  delete env.DATABASE_URL;
  delete env.AGENTS;
  api = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', path.join(root, 'apps/api/src/test/provoke-failures.ts'), path.join(root, 'apps/api/src/main.ts')],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  api.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  api.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(health, (status) => status === 200, 60_000);
}, 90_000);
afterAll(async () => {
  if (api.exitCode === null && api.signalCode === null) {
    const exited = new Promise((resolve) => api.once('exit', resolve));
    api.kill('SIGTERM');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

const health = () =>
  fetch(`http://127.0.0.1:${port}/healthz`).then(
    (r) => r.status,
    () => 0,
  );

describe('the API process', () => {
  it('logs an unhandled rejection and keeps serving', async () => {
    api.kill('SIGUSR2');
    await until(
      () => output,
      (text) => text.includes('provoked rejection'),
    );
    expect(output).toMatch(/"level":50.*unhandled promise rejection/);
    expect(await health()).toBe(200);
    expect(api.exitCode).toBe(null);
  });

  it('logs an uncaught exception and exits non-zero, so the supervisor starts a clean process', async () => {
    const exited = new Promise<number | null>((resolve) => api.once('exit', (code) => resolve(code)));
    api.kill('SIGHUP');
    expect(await exited).toBe(1);
    expect(output).toMatch(/"level":60.*provoked exception/);
  });
});
