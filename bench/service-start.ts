/**
 * How long the API and the agent take to start from their TypeScript through tsx (development, `npm start`)
 * against their production build with plain node (`npm run build:services`, docs/deployment.md): from the
 * process's spawn until it answers HTTP (the API's health check, with the embedded database already made;
 * the agent's, which answers 401 without its token). Median of 5 each, taking turns. Target: the build
 * starts no slower (ratio ≤ 1).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildService } from '../scripts/build-services.ts';
import { freePort } from '../test-support/free-port.ts';
import { median } from './game-ping.ts';

const ROUNDS = 5;
const root = path.resolve(import.meta.dirname, '..');
const folder = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-service-start-'));
// Never a vendor from a bench: a closed local port.
const closed = 'http://127.0.0.1:9';

async function timedStart(args: string[], env: Record<string, string>, port: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  try {
    for (;;) {
      const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => true,
        () => false,
      );
      if (answered) return Math.round(performance.now() - started);
      if (performance.now() - started > 120_000) throw new Error(`${args.join(' ')} did not answer within 2 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function service(name: 'api' | 'agent', env: (port: number) => Record<string, string>) {
  const from = { source: [] as number[], built: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of ['source', 'built'] as const) {
      const port = await freePort();
      const args = kind === 'source' ? ['--import', 'tsx', `apps/${name}/src/main.ts`] : [`apps/${name}/dist/main.js`];
      from[kind].push(await timedStart(args, env(port), port));
    }
  }
  const source = median(from.source);
  const built = median(from.built);
  return { [`${name}SourceMs`]: source, [`${name}BuiltMs`]: built, [`${name}Ratio`]: +(built / source).toFixed(2) };
}

try {
  await buildService('api');
  await buildService('agent');
  // One database for every API start: its creation (a first start only) is not what is timed.
  const dataDir = path.join(folder, 'api');
  const api = await service('api', (port) => ({
    DATA_DIR: dataDir,
    PORT: String(port),
    PROXY_TOKEN: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
  }));
  const agent = await service('agent', (port) => ({
    AGENT_TOKEN: randomBytes(32).toString('hex'),
    AGENT_PORT: String(port),
    DATA_DIR: path.join(folder, 'agent'),
    API_URL: closed,
    ALLOW_UNCAGED_GAMES: 'true',
    SOFTWARE_MIRROR_PAPER: closed,
    SOFTWARE_MIRROR_PURPUR: closed,
    SOFTWARE_MIRROR_MOJANG: closed,
    SOFTWARE_MIRROR_FABRIC: closed,
    SOFTWARE_MIRROR_ADOPTIUM: closed,
    LOG_LEVEL: 'warn',
  }));
  console.log(JSON.stringify({ bench: 'service-start', rounds: ROUNDS, ...api, ...agent, target: { ratio: 1 } }));
} finally {
  rmSync(folder, { recursive: true, force: true });
}
