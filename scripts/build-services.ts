/**
 * `npm run build` (with the web app's build): the API, the agent and the join proxy as plain JavaScript, so
 * production runs them with `node` alone (docs/deployment.md). Each entry is bundled with our own workspace
 * packages (TypeScript) into `apps/<app>/dist/`; every npm package stays outside and loads from
 * node_modules, so `npm ci --omit=dev` is all a machine installs. Each output refuses to start when a source
 * it was built from is newer than it (a `git pull` without a build), saying what to run.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');

/** What each app runs in production, by its source path inside the app. */
export const serviceEntries = {
  api: ['src/main.ts', 'src/cli.ts', 'src/db/create-pglite-child.ts'],
  agent: ['src/main.ts'],
  proxy: ['src/main.ts'],
} as const;

export type ServiceName = keyof typeof serviceEntries;

/** The sources an app's build is made from (repository-relative): newer than its build means stale. */
const sourcesOf = (app: ServiceName) => [`apps/${app}/src`, 'packages/contracts/src', 'packages/logging/src'];

// npm packages (bare specifiers other than ours) load from node_modules at run time.
const npmPackagesOutside: Plugin = {
  name: 'npm-packages-outside',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@spawnpoint/') || args.path.startsWith('node:') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Put first in every output file: refuses to run a build older than its sources. Paths are found from the
 * file itself (`apps/<app>/dist/x.js`, three folders below the repository), so a moved checkout still works.
 */
function freshnessCheck(app: ServiceName, builtAtMs: number): string {
  return `import { readdirSync as __spReaddir, statSync as __spStat } from 'node:fs';
import { join as __spJoin, resolve as __spResolve } from 'node:path';
(() => {
  const root = __spResolve(import.meta.dirname, '..', '..', '..');
  let newest = 0;
  for (const dir of ${JSON.stringify(sourcesOf(app))}) {
    for (const e of __spReaddir(__spJoin(root, dir), { recursive: true, withFileTypes: true }))
      if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
        newest = Math.max(newest, __spStat(__spJoin(e.parentPath, e.name)).mtimeMs);
  }
  if (newest > ${builtAtMs}) {
    console.error('The ${app} build in apps/${app}/dist is older than its sources (after a git pull?). Run \`npm run build\`, then start it again.');
    process.exit(78);
  }
})();`;
}

export async function buildService(app: ServiceName): Promise<string[]> {
  const dist = path.join(root, 'apps', app, 'dist');
  mkdirSync(dist, { recursive: true });
  // Only what this build makes: the agent compiles its game launcher into the same folder at run time.
  for (const file of readdirSync(dist, { withFileTypes: true }).filter((e) => e.isFile()))
    if (/\.js(\.map)?$/.test(file.name)) rmSync(path.join(dist, file.name));
  const builtAt = Date.now();
  const result = await build({
    absWorkingDir: root,
    entryPoints: serviceEntries[app].map((entry) => `apps/${app}/${entry}`),
    outdir: dist,
    // Entries and shared chunks side by side in dist/, one folder below the app as src/ is: modules that
    // find files from their own place (install-root.ts) find the same ones.
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: 'linked',
    plugins: [npmPackagesOutside],
    define: { SPAWNPOINT_BUILT: 'true' },
    banner: { js: freshnessCheck(app, builtAt) },
    metafile: true,
    logLevel: 'warning',
  });
  return Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js'));
}

export async function buildServices(): Promise<void> {
  for (const app of Object.keys(serviceEntries) as ServiceName[]) {
    const outputs = await buildService(app);
    console.log(`${app}: ${outputs.length} file(s) in apps/${app}/dist`);
  }
}

if (process.argv[1] === import.meta.filename) await buildServices();
