import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

// The product is started exactly as a user starts it (`npm start`), in a fresh data folder.
const port = Number(process.env.E2E_PORT ?? 3100);
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-e2e-'));
// The browser suite runs the product as a new user starts it: the embedded database in its own DATA_DIR.
// A DATABASE_URL set for the database suites (CI sets one) would otherwise reach `npm start`, and every
// run would add its servers to one shared PostgreSQL database until the node's game ports run out.
delete process.env.DATABASE_URL;
const baseURL = `http://localhost:${port}`;
// Modrinth and Hangar are out of reach here: java-plugins.spec.ts serves their API shapes on this port.
process.env.E2E_CATALOGUE_PORT ??= String(port + 3000);
const catalogue = `http://127.0.0.1:${process.env.E2E_CATALOGUE_PORT}`;
// The software vendors too (their version lists): vendor-stub-main.ts, started before the product.
process.env.E2E_VENDOR_PORT ??= String(port + 3001);
const vendors = `http://127.0.0.1:${process.env.E2E_VENDOR_PORT}`;

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  outputDir: path.join(os.tmpdir(), 'spawnpoint-e2e-results'),
  use: {
    baseURL,
    // A failed test keeps its trace (actions, network, DOM snapshots) but no screencast: recording frames
    // for every test took a third of the suite's CPU (docs/development.md, "How long the suite takes").
    trace: { mode: 'retain-on-failure', screenshots: false },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: [
    {
      command: 'npx tsx e2e/vendor-stub-main.ts',
      cwd: path.resolve(import.meta.dirname, '..'),
      port: Number(process.env.E2E_VENDOR_PORT),
      reuseExistingServer: false,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: 'npm start',
      cwd: path.resolve(import.meta.dirname, '..'),
      url: `${baseURL}/healthz`,
      timeout: 180_000,
      reuseExistingServer: false,
      // Stop as a user would (Ctrl-C), so the agent stops the game servers it runs.
      gracefulShutdown: { signal: 'SIGINT', timeout: 30_000 },
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        PORT: String(port),
        DATA_DIR: process.env.E2E_DATA_DIR,
        PUBLIC_URL: baseURL,
        LOG_LEVEL: 'warn',
        // Every test signs up from 127.0.0.1; the limits themselves are tested in the API suite.
        RATE_LIMIT_FACTOR: '20',
        GAME_PORT_RANGE: process.env.E2E_GAME_PORT_RANGE ?? '25700-25799',
        AGENT_PORT: String(port + 1000),
        // The join proxy gets its own port (never Minecraft's 25565, which a player's own server may hold).
        PROXY_PORT: process.env.E2E_PROXY_PORT ?? String(port + 2000),
        // Servers nobody plays on sleep after 45 s (never sooner than 15 s after coming online), so
        // sleeping.spec.ts sees one fall asleep; every other spec is done with an empty server sooner.
        IDLE_STOP_MINUTES: process.env.E2E_IDLE_STOP_MINUTES ?? '0.75',
        MIN_ONLINE_MINUTES: '0.25',
        MODRINTH_API_URL: catalogue,
        HANGAR_API_URL: catalogue,
        PLUGIN_DOWNLOAD_HOSTS: new URL(catalogue).host,
        PLUGIN_DOWNLOAD_ALLOW_HTTP: 'true',
        PLUGIN_CATALOGUE_CACHE_SECONDS: '0',
        SOFTWARE_MIRROR_PAPER: vendors,
        SOFTWARE_MIRROR_PURPUR: vendors,
        SOFTWARE_MIRROR_MOJANG: vendors,
        SOFTWARE_MIRROR_FABRIC: vendors,
        SOFTWARE_MIRROR_ADOPTIUM: vendors,
      },
    },
  ],
});
