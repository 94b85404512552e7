/**
 * The API's resident memory with the embedded database (PGlite), on a first start (the database is made)
 * and on the next start of the same folder, each 3 s after it answers; the target is that a first start
 * keeps no more than a later one (the creation runs in a process of its own: apps/api/src/db/create-pglite.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from './stack.ts';

const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-first-start-')), 'data');

async function apiResidentMb(): Promise<{ apiMb: number; startMs: number }> {
  const started = performance.now();
  const stack = await startStack({ port: 3906, dataDir, gamePorts: '25971-25979' });
  const startMs = Math.round(performance.now() - started);
  try {
    // Settled: the start's own work (migrations, the first requests) is done.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    return { apiMb: stack.apiRssMb(), startMs };
  } finally {
    await stack.stopped();
  }
}

try {
  const first = await apiResidentMb();
  const next = await apiResidentMb();
  console.log(
    JSON.stringify({
      bench: 'first-start-memory',
      firstStartApiMb: first.apiMb,
      nextStartApiMb: next.apiMb,
      ratio: +(first.apiMb / next.apiMb).toFixed(2),
      firstStartMs: first.startMs,
      nextStartMs: next.startMs,
      target: { ratio: 1.1 },
    }),
  );
} finally {
  rmSync(path.dirname(dataDir), { recursive: true, force: true });
}
