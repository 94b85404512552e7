/**
 * File and backup figures of ARCHITECTURE §11:
 * - backup: our tar.gz (level 1, through the sandbox) of a folder vs `tar -czf` with gzip -1 of the same folder;
 * - download and upload through the real stack (browser → API → agent and back) vs `cat` to /dev/null,
 *   with the peak memory of the stack while they run.
 * BENCH_MB sets the data size (default 200; the target is stated for 500).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Sandbox } from '../apps/agent/src/sandbox.ts';
import { openTrees, packTarGz } from '../apps/agent/src/archives.ts';
import { startStack } from './stack.ts';

const MB = 1024 * 1024;
const size = Number(process.env.BENCH_MB ?? 200);
const work = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-files-'));
const folder = path.join(work, 'server');

// A world-like folder: many small region-sized files, half random (incompressible), half repetitive.
mkdirSync(path.join(folder, 'world/region'), { recursive: true });
for (let i = 0; i < size / 2; i++) {
  const random = randomBytes(MB / 2);
  writeFileSync(path.join(folder, 'world/region', `r.${i}.mca`), Buffer.concat([random, Buffer.alloc(MB / 2, i % 256)]));
}
const seconds = (fn: () => void | Promise<void>) => async () => {
  const t = performance.now();
  await fn();
  return (performance.now() - t) / 1000;
};

const tarSeconds = await seconds(() => {
  execFileSync('tar', ['-I', 'gzip -1', '-cf', path.join(work, 'ref.tar.gz'), '-C', folder, '.']);
})();
const sandbox = await Sandbox.open(folder, 100 * 1024 * MB);
const oursSeconds = await seconds(async () => {
  await packTarGz(await openTrees(sandbox, ['/']), createWriteStream(path.join(work, 'ours.tar.gz')), 1);
})();
await sandbox.close();
console.log(
  JSON.stringify({
    bench: 'backup',
    mb: size,
    tarSeconds: +tarSeconds.toFixed(2),
    oursSeconds: +oursSeconds.toFixed(2),
    ratio: +(oursSeconds / tarSeconds).toFixed(2),
    target: 1.1,
  }),
);

// --- through the stack ---
const stack = await startStack({ port: 3904, dataDir: path.join(work, 'data'), gamePorts: '25960-25970' });
const { call } = stack;
const BASE = stack.base;
try {
  const server = await call('POST', '/v1/server/create', { serverName: `files-${Date.now().toString(36).slice(-6)}` });
  const id = server.result.serverId as string;

  const file = path.join(work, 'blob.bin');
  const out = createWriteStream(file);
  for (let i = 0; i < size; i++) out.write(randomBytes(MB));
  await new Promise<void>((r) => out.end(r));
  const fileMb = size;
  let peak = stack.rssMb();
  const sampler = setInterval(() => (peak = Math.max(peak, stack.rssMb())), 200);

  const uploadSeconds = await seconds(() => {
    execFileSync('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-b',
      stack.cookie(),
      '-F',
      `file=@${file}`,
      `${BASE}/v1/server/${id}/files/upload?path=/big.tar.gz`,
    ]);
  })();
  const downloadSeconds = await seconds(() => {
    execFileSync('curl', ['-s', '-o', '/dev/null', '-b', stack.cookie(), `${BASE}/v1/server/${id}/files/download?path=/big.tar.gz`]);
  })();
  clearInterval(sampler);
  const catSeconds = await seconds(() => {
    execFileSync('sh', ['-c', `cat '${file}' > /dev/null`]);
  })();
  console.log(
    JSON.stringify({
      bench: 'transfer',
      mb: +fileMb.toFixed(1),
      catMBps: Math.round(fileMb / catSeconds),
      downloadMBps: Math.round(fileMb / downloadSeconds),
      uploadMBps: Math.round(fileMb / uploadSeconds),
      downloadRatio: +(catSeconds / downloadSeconds).toFixed(2),
      peakStackRssMb: peak,
      target: { ratio: 0.8 },
    }),
  );
} finally {
  stack.stop();
  execFileSync('rm', ['-rf', work]);
}
