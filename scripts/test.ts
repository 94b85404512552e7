/**
 * `npm test`: builds the web app, runs every Vitest project (unit, API on PGlite, and API on PostgreSQL
 * when DATABASE_URL is set; the several-processes suite when TEST_REDIS_URL is set) and the Playwright suite
 * against `npm start`, and prints one closing line `N passed, N failed` with the totals of all suites.
 *
 * The two suites run side by side when the browser suite can have a network namespace of its own (root, or
 * anywhere `unshare -n` works): each of its game servers adds an address to the network it runs in, and
 * Chromium drops its half-open connections on every such change (net::ERR_NETWORK_CHANGED), so it must not
 * see the games the Vitest suites start by the hundred. Where it cannot, they run one after the other
 * (docs/development.md, "How long the suite takes").
 */
import { spawn, spawnSync, type StdioOptions } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const reports = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-test-'));
let passed = 0;
let failed = 0;

/** How long each suite took, printed at the end (where the time of `npm test` goes). */
const durations: { label: string; seconds: number }[] = [];

/** Runs one suite to its end; with `logFile`, its output goes there instead of to the terminal. */
async function run(label: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}, logFile?: string): Promise<number> {
  console.log(`\n=== ${label}${logFile ? ` (its output follows when it ends: ${logFile})` : ''} ===`);
  const started = performance.now();
  const log = logFile ? createWriteStream(logFile) : undefined;
  const stdio: StdioOptions = log ? ['ignore', 'pipe', 'pipe'] : 'inherit';
  const child = spawn(command, args, { cwd: root, stdio, env: { ...process.env, ...env } });
  if (log) {
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
  }
  const status = await new Promise<number>((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
  if (log) await new Promise((resolve) => log.end(resolve));
  durations.push({ label, seconds: Math.round((performance.now() - started) / 1000) });
  return status;
}

function readJson(file: string): unknown {
  try {
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
  } catch {
    return null;
  }
}

/** Whether a child can be given a network namespace of its own, with its loopback up. */
function canIsolateNetwork(): boolean {
  if (process.env.TEST_SUITES_IN_SERIES === '1') return false;
  const probe = spawnSync('unshare', ['--net', '--', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore' });
  return probe.status === 0;
}

const build = await run('web build', 'npm', ['run', 'build', '-w', 'apps/web']);
if (build !== 0) failed++;
// The suites start the API, agents and proxies from their production build (test-support/service-command.ts).
const servicesBuild = await run('services build', 'npm', ['run', 'build:services']);
if (servicesBuild !== 0) failed++;

// A test Redis has its own variable: REDIS_URL itself would reach every API process the tests start.
if (!process.env.TEST_REDIS_URL)
  console.log(
    '\nTEST_REDIS_URL is not set: the suites of several API processes sharing Redis and of Redis restarting (apps/api/src/cluster.test.ts, redis-outage.test.ts, game-plane.test.ts) are not run.',
  );

const vitestReport = path.join(reports, 'vitest.json');
const playwrightReport = path.join(reports, 'playwright.json');
const playwrightArgs = ['playwright', 'test', '-c', 'e2e/playwright.config.ts'];
const runVitest = () =>
  run('vitest', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`], {
    TEST_SERVICES_BUILT: servicesBuild === 0 ? '1' : '0',
  });
const playwrightEnv = { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport };

let vitestStatus: number;
let playwrightStatus = 1;
if (build !== 0) vitestStatus = await runVitest();
else if (canIsolateNetwork()) {
  const playwrightLog = path.join(reports, 'playwright.log');
  const inItsOwnNetwork = ['--net', '--', 'sh', '-c', 'ip link set lo up && exec npx "$@"', 'sh', ...playwrightArgs];
  const browser = run('playwright, beside vitest in a network of its own', 'unshare', inItsOwnNetwork, playwrightEnv, playwrightLog);
  vitestStatus = await runVitest();
  playwrightStatus = await browser;
  console.log(`\n=== playwright ===\n${readFileSync(playwrightLog, 'utf8')}`);
} else {
  vitestStatus = await runVitest();
  playwrightStatus = await run('playwright', 'npx', playwrightArgs, playwrightEnv);
}

const vitest = readJson(vitestReport) as { numPassedTests?: number; numFailedTests?: number } | null;
if (vitest) {
  passed += vitest.numPassedTests ?? 0;
  failed += vitest.numFailedTests ?? 0;
}
if (vitestStatus !== 0 && !vitest?.numFailedTests) failed++; // crashed before reporting

const playwright = readJson(playwrightReport) as { stats?: { expected?: number; unexpected?: number; flaky?: number } } | null;
if (playwright?.stats) {
  passed += playwright.stats.expected ?? 0;
  failed += (playwright.stats.unexpected ?? 0) + (playwright.stats.flaky ?? 0);
}
if (playwrightStatus !== 0 && !playwright?.stats?.unexpected) failed++;

console.log(`\n${durations.map((d) => `${d.label} ${Math.floor(d.seconds / 60)} min ${d.seconds % 60} s`).join(' · ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
