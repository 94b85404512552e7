import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../test-support/free-port.ts';
import { until } from '../test-support/until.ts';
import { buildService } from './build-services.ts';

/**
 * The production build: each service bundled to plain JavaScript that `node` runs with no TypeScript loader,
 * as the systemd units of docs/deployment.md do, and that refuses to run when its sources are newer.
 */
const root = path.resolve(import.meta.dirname, '..');
const children: ChildProcess[] = [];
const folders: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  folders.push(dir);
  return dir;
};

/** Runs a built entry with plain node (no --import tsx), its output collected. */
function runBuilt(file: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--enable-source-maps', file], {
    cwd: os.tmpdir(),
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

const answers = async (url: string) => {
  try {
    return (await fetch(url)).status;
  } catch {
    return 0;
  }
};

// Under `npm test` the build is the one this run made before the suites (TEST_SERVICES_BUILT=1), which other
// suites' processes run from: building again here would pull it from under them.
beforeAll(async () => {
  if (process.env.TEST_SERVICES_BUILT === '1') return;
  for (const app of ['api', 'agent', 'proxy'] as const) await buildService(app);
}, 120_000);
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('the production build', { timeout: 120_000 }, () => {
  it('runs the API with plain node: it makes its embedded database and answers its health check', async () => {
    const port = await freePort();
    runBuilt(path.join(root, 'apps/api/dist/main.js'), {
      DATA_DIR: temp('spawnpoint-built-api-'),
      PORT: String(port),
      PROXY_TOKEN: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    });
    const health = await until(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
        return res ? ((await res.json()) as { status: string; result: { database: string } }) : null;
      },
      (body) => body !== null,
      90_000,
    );
    expect(health).toMatchObject({ status: 'SUCCESS', result: { database: 'ok' } });
  });

  it('runs the agent and the join proxy with plain node', async () => {
    const agentPort = await freePort();
    runBuilt(path.join(root, 'apps/agent/dist/main.js'), {
      AGENT_TOKEN: randomBytes(32).toString('hex'),
      AGENT_PORT: String(agentPort),
      DATA_DIR: temp('spawnpoint-built-agent-'),
      API_URL: 'http://127.0.0.1:9',
      ALLOW_UNCAGED_GAMES: 'true',
      // Never the vendors themselves from a test: a closed local port.
      SOFTWARE_MIRROR_PAPER: 'http://127.0.0.1:9',
      SOFTWARE_MIRROR_PURPUR: 'http://127.0.0.1:9',
      SOFTWARE_MIRROR_MOJANG: 'http://127.0.0.1:9',
      SOFTWARE_MIRROR_FABRIC: 'http://127.0.0.1:9',
      SOFTWARE_MIRROR_ADOPTIUM: 'http://127.0.0.1:9',
      LOG_LEVEL: 'warn',
    });
    // Without its token the agent refuses: it runs, and its checks with it.
    expect(
      await until(
        () => answers(`http://127.0.0.1:${agentPort}/healthz`),
        (s) => s === 401,
        60_000,
      ),
    ).toBe(401);
    const proxyPort = await freePort();
    const proxy = runBuilt(path.join(root, 'apps/proxy/dist/main.js'), {
      PROXY_PORT: String(proxyPort),
      PROXY_TOKEN: randomBytes(32).toString('hex'),
      API_URL: 'http://127.0.0.1:9',
    });
    await until(proxy.output, (text) => text.includes(`Join proxy listening on port ${proxyPort}`), 60_000);
  });

  it('refuses to start from a build older than its sources, saying what to run', () => {
    // A copy of the proxy's build in a checkout of its own, whose source then changes (a git pull).
    const checkout = temp('spawnpoint-stale-');
    cpSync(path.join(root, 'apps/proxy/dist'), path.join(checkout, 'apps/proxy/dist'), { recursive: true });
    symlinkSync(path.join(root, 'node_modules'), path.join(checkout, 'node_modules'));
    for (const dir of ['apps/proxy/src', 'packages/contracts/src', 'packages/logging/src'])
      mkdirSync(path.join(checkout, dir), { recursive: true });
    const changed = path.join(checkout, 'apps/proxy/src/join-proxy.ts');
    writeFileSync(changed, '// pulled\n');
    const later = new Date(Date.now() + 60_000);
    utimesSync(changed, later, later);
    const run = spawnSync(process.execPath, [path.join(checkout, 'apps/proxy/dist/main.js')], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(78);
    expect(run.stderr).toContain(
      'The proxy build in apps/proxy/dist is older than its sources (after a git pull?). Run `npm run build`, then start it again.',
    );
  });
});
