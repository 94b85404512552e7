/**
 * `npm test`: builds the web app, runs every Vitest project (unit, API on PGlite, and API on PostgreSQL
 * when DATABASE_URL is set; the several-processes suite when TEST_REDIS_URL is set), then the Playwright suite against `npm start`, and prints one closing line
 * `N passed, N failed` with the totals of all suites.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const reports = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-test-'));
let passed = 0;
let failed = 0;

/** How long each suite took, printed at the end (where the time of `npm test` goes). */
const durations: { label: string; seconds: number }[] = [];

function run(label: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): number {
  console.log(`\n=== ${label} ===`);
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  durations.push({ label, seconds: Math.round((performance.now() - started) / 1000) });
  return result.status ?? 1;
}

function readJson(file: string): unknown {
  try {
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
  } catch {
    return null;
  }
}

const build = run('web build', 'npm', ['run', 'build', '-w', 'apps/web']);
if (build !== 0) failed++;

// A test Redis has its own variable: REDIS_URL itself would reach every API process the tests start.
if (!process.env.TEST_REDIS_URL)
  console.log(
    '\nTEST_REDIS_URL is not set: the suites of several API processes sharing Redis and of Redis restarting (apps/api/src/cluster.test.ts, redis-outage.test.ts, game-plane.test.ts) are not run.',
  );

const vitestReport = path.join(reports, 'vitest.json');
const vitestStatus = run('vitest', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`]);
const vitest = readJson(vitestReport) as { numPassedTests?: number; numFailedTests?: number } | null;
if (vitest) {
  passed += vitest.numPassedTests ?? 0;
  failed += vitest.numFailedTests ?? 0;
}
if (vitestStatus !== 0 && !vitest?.numFailedTests) failed++; // crashed before reporting

const playwrightReport = path.join(reports, 'playwright.json');
const playwrightStatus =
  build === 0
    ? run('playwright', 'npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts'], { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport })
    : 1;
const playwright = readJson(playwrightReport) as { stats?: { expected?: number; unexpected?: number; flaky?: number } } | null;
if (playwright?.stats) {
  passed += playwright.stats.expected ?? 0;
  failed += (playwright.stats.unexpected ?? 0) + (playwright.stats.flaky ?? 0);
}
if (playwrightStatus !== 0 && !playwright?.stats?.unexpected) failed++;

console.log(`\n${durations.map((d) => `${d.label} ${Math.floor(d.seconds / 60)} min ${d.seconds % 60} s`).join(' · ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
