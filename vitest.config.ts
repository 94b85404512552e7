import { defineConfig } from 'vitest/config';

// Database suites run on PGlite always, and again on PostgreSQL when DATABASE_URL is set.
const databases = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
// Several API processes share Redis (apps/api/src/cluster.ts): that suite needs one, named by TEST_REDIS_URL
// (not REDIS_URL, which every API process a test starts would then use too).
// The Redis-restart suite starts a Redis server of its own (`redis-server`), so it runs where Redis is installed too.
const withoutRedis = process.env.TEST_REDIS_URL
  ? []
  : [
      'apps/api/src/cluster.test.ts',
      'apps/api/src/redis-outage.test.ts',
      'apps/api/src/game-plane.test.ts',
      'apps/api/src/game-plane-lease.test.ts',
      'apps/api/src/cluster-harness.test.ts',
    ];

// On PostgreSQL again: only the files whose behaviour depends on the database (durability, outages,
// migrations, concurrency and locks, single-use tokens, money, several API processes sharing it). Every
// other API file runs once, on PGlite: same SQL, same migrations, and PGlite is what `npm start` runs.
const onPostgres = [
  'apps/api/src/durability.test.ts',
  'apps/api/src/postgres-outage.test.ts',
  'apps/api/src/reliability.test.ts',
  'apps/api/src/db/**/*.test.ts',
  'apps/api/src/cluster.test.ts',
  'apps/api/src/cluster-harness.test.ts',
  'apps/api/src/game-plane.test.ts',
  'apps/api/src/game-plane-lease.test.ts',
  'apps/api/src/redis-outage.test.ts',
  'apps/api/src/servers/start-queue.test.ts',
  'apps/api/src/routes/auth.test.ts',
  'apps/api/src/routes/account.test.ts',
  'apps/api/src/routes/members.test.ts',
  'apps/api/src/routes/billing.test.ts',
  'apps/api/src/routes/plans.test.ts',
  'apps/api/src/routes/servers.test.ts',
  'apps/api/src/routes/backups.test.ts',
  'apps/api/src/routes/schedules.test.ts',
];

// `isolate: false`: the files of a worker share one module registry, so the app, the agent's modules and
// their dependencies are imported once per worker instead of once per file (a sixth of the suite's CPU).
// Nothing here mocks a module; a test that fakes timers or spies on an object restores it before it ends.
export default defineConfig({
  test: {
    // PGlite instances are heavy; two files at a time fits two cores.
    maxWorkers: 2,
    projects: [
      {
        define: {
          __PUBLIC_SETTINGS__: JSON.stringify({
            apiBaseUrl: '',
            socketBaseUrl: '',
            platform: 'web',
            supportUrl: 'https://help.example',
            buildId: 'test',
            siteUrl: 'http://localhost:3000',
            integrations: { analyticsKey: '', chatWidgetId: '', tagManagerId: '', adsClient: '' },
          }),
        },
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/web/app/**/*.test.ts', 'scripts/**/*.test.ts'],
          environment: 'node',
          isolate: false,
        },
      },
      {
        test: {
          name: 'proxy',
          include: ['apps/proxy/src/**/*.test.ts'],
          environment: 'node',
          isolate: false,
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'agent',
          include: ['apps/agent/src/**/*.test.ts'],
          environment: 'node',
          isolate: false,
          testTimeout: 90_000,
          hookTimeout: 60_000,
        },
      },
      ...databases.map((database) => ({
        test: {
          name: `api:${database}`,
          include: database === 'postgres' ? onPostgres : ['apps/api/src/**/*.test.ts'],
          // PGlite runs inside the API process: there is no database connection to cut, nor one to share
          // between API processes.
          exclude: [
            '**/node_modules/**',
            ...withoutRedis,
            ...(database === 'pglite'
              ? [
                  'apps/api/src/postgres-outage.test.ts',
                  'apps/api/src/db/migrations.test.ts',
                  'apps/api/src/game-plane.test.ts',
                  'apps/api/src/cluster-harness.test.ts',
                ]
              : ['apps/api/src/db/create-pglite.test.ts']),
          ],
          environment: 'node',
          isolate: false,
          env: { TEST_DATABASE: database },
          globalSetup: ['apps/api/src/test/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      })),
    ],
  },
});
