/** `npm run bench`: runs every benchmark; each prints one JSON line. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

for (const file of [
  'http.ts',
  'game.ts',
  'cage.ts',
  'cage-network.ts',
  'files.ts',
  'first-start.ts',
  'service-start.ts',
  'site.ts',
  'proxy.ts',
  'wake.ts',
  'load.ts',
  'fleet.ts',
  'takeover.ts',
]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, file)], { stdio: 'inherit' });
  if (result.status !== 0) console.log(JSON.stringify({ bench: file, error: `exited with ${result.status}` }));
}
