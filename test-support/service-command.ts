import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/**
 * The arguments after `node` that start one of our services as a process of its own in a test. Under
 * `npm test`, which builds the services first (scripts/test.ts sets TEST_SERVICES_BUILT=1), that is the
 * production build, as the systemd units run it: each start then skips compiling its TypeScript again
 * (about a second of CPU for the agent, two for the API, docs/performance.md). A test file run on its own
 * starts the sources through tsx, so an edit needs no build.
 */
export function serviceArgs(app: 'api' | 'agent' | 'proxy', entry: 'main' | 'cli' = 'main'): string[] {
  if (process.env.TEST_SERVICES_BUILT === '1') return [path.join(root, 'apps', app, 'dist', `${entry}.js`)];
  return ['--import', 'tsx', path.join(root, 'apps', app, 'src', `${entry}.ts`)];
}
