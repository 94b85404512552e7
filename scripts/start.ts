/**
 * `npm start`: the whole product with the embedded defaults. Builds the web app first when it is
 * missing or older than its sources (after a `git pull`, say), then runs the API (which serves the web app, applies migrations and writes mail files) and
 * one local agent that runs the game servers, and the join proxy on PROXY_PORT. They share a node token
 * (and the API and the proxy a proxy token) made fresh for this run.
 * When AGENTS is set, the operator runs their own agents and none is started here. A part that exits
 * unexpectedly is started again with back-off; SIGINT or SIGTERM stops everything.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { API_NODE_FLAGS } from '../apps/api/src/node-flags.ts';
import { supervise, type Supervised } from './supervise.ts';

const root = path.resolve(import.meta.dirname, '..');
const webBuild = path.join(root, 'apps/web/build/client/__spa-fallback.html');

// What the web build is made from; a file changed after the last build means it is stale.
const webSources = [
  'apps/web/app',
  'apps/web/content',
  'apps/web/public',
  'apps/web/scripts',
  'apps/web/vite.config.ts',
  'packages/contracts/src',
];

function newestSourceMs(): number {
  let newest = 0;
  for (const source of webSources) {
    const full = path.join(root, source);
    if (!existsSync(full)) continue;
    const files = statSync(full).isDirectory()
      ? readdirSync(full, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => path.join(e.parentPath, e.name))
      : [full];
    for (const file of files) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

const missing = !existsSync(webBuild);
if (missing || newestSourceMs() > statSync(webBuild).mtimeMs) {
  console.log(missing ? 'Building the web app (first start only)…' : 'The web app changed since its last build; building it again…');
  const build = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = Number(process.env.PORT ?? 3000);
const agentPort = Number(process.env.AGENT_PORT ?? port + 1000);
const env: NodeJS.ProcessEnv = { ...process.env };
const parts: { supervised: Supervised; stopSignal: NodeJS.Signals }[] = [];

// A part that exits unexpectedly is started again with back-off (scripts/supervise.ts); only a signal to
// `npm start` stops everything.
function run(
  name: string,
  entry: string,
  childEnv: NodeJS.ProcessEnv,
  stopSignal: NodeJS.Signals = 'SIGTERM',
  finalExitCodes: readonly number[] = [],
  nodeFlags: readonly string[] = [],
): void {
  const start = () =>
    spawn(process.execPath, [...nodeFlags, '--import', 'tsx', path.join(root, entry)], { cwd: root, stdio: 'inherit', env: childEnv });
  parts.push({ supervised: supervise(name, start, { finalExitCodes }), stopSignal });
}

// The join proxy (apps/proxy) on PROXY_PORT (25565, Minecraft's default; 0 runs without it) shares a token
// made fresh for this run with the API. A proxy that cannot bind its port says how to pick another and exits
// with 78; it is not started again, and everything else keeps running.
const proxyPort = env.PROXY_PORT ?? '25565';
env.PROXY_PORT = proxyPort;
env.PROXY_TOKEN ??= randomBytes(32).toString('hex');

if (!env.AGENTS) {
  const token = randomBytes(32).toString('hex');
  const portRange = env.GAME_PORT_RANGE ?? '25600-25699';
  env.AGENTS = JSON.stringify([
    {
      id: 'local',
      url: `http://127.0.0.1:${agentPort}`,
      token,
      publicHost: env.GAME_PUBLIC_HOST ?? 'localhost',
      capacity: 50,
      portRange,
      // Where browsers follow signed download links; the agent's own address when unset.
      ...(env.AGENT_DOWNLOAD_URL ? { downloadUrl: env.AGENT_DOWNLOAD_URL } : {}),
    },
  ]);
  run(
    'agent',
    'apps/agent/src/main.ts',
    {
      ...process.env,
      AGENT_NODE_ID: 'local',
      AGENT_TOKEN: token,
      AGENT_HOST: '127.0.0.1',
      AGENT_PORT: String(agentPort),
      API_URL: `http://127.0.0.1:${port}`,
      GAME_PORT_RANGE: portRange,
      // The embedded default must run on a laptop without bubblewrap: games then run uncaged and the agent
      // says so at start and in every server's console. Never in production (the agent refuses it there).
      ALLOW_UNCAGED_GAMES: process.env.ALLOW_UNCAGED_GAMES ?? (process.env.NODE_ENV === 'production' ? 'false' : 'true'),
    },
    // Stopping Spawnpoint stops its game servers too (SIGTERM alone would leave them running).
    'SIGINT',
  );
}
run('api', 'apps/api/src/main.ts', env, 'SIGTERM', [], API_NODE_FLAGS);
if (proxyPort !== '0')
  run(
    'proxy',
    'apps/proxy/src/main.ts',
    // Not the API's environment: the proxy has no business with node tokens (AGENTS) or the app secret.
    { ...process.env, PROXY_PORT: proxyPort, PROXY_TOKEN: env.PROXY_TOKEN, API_URL: `http://127.0.0.1:${port}` },
    'SIGTERM',
    [78],
  );

let shuttingDown = false;
function stop(): void {
  if (shuttingDown) return;
  shuttingDown = true;
  setTimeout(() => process.exit(1), 40_000).unref();
  void Promise.all(parts.map(({ supervised, stopSignal }) => supervised.stop(stopSignal))).then(() => process.exit(0));
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
