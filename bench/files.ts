/**
 * File and backup figures of docs/benchmarks.md:
 * - backup: our tar.gz (level 1, through the sandbox) of a folder vs `tar -czf` with gzip -1 of the same folder,
 *   and restoring it (our archive unpacked through the sandbox into an empty folder) vs `tar -xzf` of tar's;
 * - upload as the dashboard makes it (the API signs a link, the file goes to the node with one PUT, curl -T)
 *   and through the API's multipart endpoint (browser → API → agent), with the CPU time the API spent on each;
 *   download as a browser does it (the API's download endpoint answers 302 to a signed link on the node,
 *   followed with curl -L), against `cat` of the same file to /dev/null and against the same curl fetching
 *   the file from a bare sendfile(2) server (`sendfile-reference.py`: what the loopback socket itself allows,
 *   skipped when python3 is missing); each the median of DOWNLOAD_RUNS runs, with the peak memory of the stack.
 * BENCH_MB sets the data size (default 200; the target is stated for 500).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Sandbox } from '../apps/agent/src/files/sandbox.ts';
import { extractFolderArchive, openTrees, packTarGz } from '../apps/agent/src/files/archives.ts';
import { startStack } from './stack.ts';

const MB = 1024 * 1024;
// Asynchronous, so the memory sampler keeps running while a transfer does.
const run = promisify(execFile);
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
const untarDir = path.join(work, 'untar');
const restoredDir = path.join(work, 'restored');
mkdirSync(untarDir);
mkdirSync(restoredDir);
const untarSeconds = await seconds(() => {
  execFileSync('tar', ['-xzf', path.join(work, 'ref.tar.gz'), '-C', untarDir]);
})();
const restoreTarget = await Sandbox.open(restoredDir, 100 * 1024 * MB);
const restoreSeconds = await seconds(async () => {
  await extractFolderArchive(restoreTarget, createReadStream(path.join(work, 'ours.tar.gz')));
})();
await restoreTarget.close();
console.log(
  JSON.stringify({
    bench: 'backup',
    mb: size,
    tarSeconds: +tarSeconds.toFixed(2),
    oursSeconds: +oursSeconds.toFixed(2),
    ratio: +(oursSeconds / tarSeconds).toFixed(2),
    untarSeconds: +untarSeconds.toFixed(2),
    restoreSeconds: +restoreSeconds.toFixed(2),
    restoreRatio: +(restoreSeconds / untarSeconds).toFixed(2),
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

  // Through the API (its multipart endpoint, for scripts), then as the dashboard does (a signed link, one PUT).
  const apiCpuBefore = stack.apiCpuSeconds();
  const apiUploadSeconds = await seconds(() => {
    execFileSync('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-b',
      stack.cookie(),
      '-F',
      `file=@${file}`,
      `${BASE}/v1/server/${id}/files/upload?path=/through-api.bin`,
    ]);
  })();
  const apiCpuThroughApi = stack.apiCpuSeconds() - apiCpuBefore;
  const linkCpuBefore = stack.apiCpuSeconds();
  const uploadSeconds = await seconds(async () => {
    const link = await call('POST', `/v1/server/${id}/files/upload-link`, { path: '/big.tar.gz', size: size * MB });
    execFileSync('curl', ['-sf', '-o', '/dev/null', '-H', 'content-type: application/octet-stream', '-T', file, String(link.result.url)]);
  })();
  const apiCpuDirect = stack.apiCpuSeconds() - linkCpuBefore;
  clearInterval(sampler);
  // The node's copy, already in the page cache (just written), read by `cat` and by the download alike.
  const stored = path.join(work, 'data', 'servers', id, 'big.tar.gz');
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const runs = Number(process.env.DOWNLOAD_RUNS ?? 7);
  const catRuns: number[] = [];
  const downloadRuns: number[] = [];
  const linkRuns: number[] = [];
  const sendfileRuns: number[] = [];
  const reference = await startSendfileReference(stored, 3905);
  const rssBeforeDownloadsMb = stack.rssMb();
  let downloadPeak = rssBeforeDownloadsMb;
  const downloadSampler = setInterval(() => (downloadPeak = Math.max(downloadPeak, stack.rssMb())), 200);
  const downloadUrl = `${BASE}/v1/server/${id}/files/download?path=/big.tar.gz`;
  for (let i = 0; i < runs; i++) {
    catRuns.push(await seconds(async () => void (await run('sh', ['-c', `cat '${stored}' > /dev/null`])))());
    // As a browser: the API's redirect (session, permission, signing), then the node's link.
    downloadRuns.push(
      await seconds(async () => void (await run('curl', ['-sfL', '-o', '/dev/null', '-b', stack.cookie(), downloadUrl])))(),
    );
    // The node's part alone: a fresh link, then the bytes.
    const link = (await run('curl', ['-s', '-o', '/dev/null', '-w', '%{redirect_url}', '-b', stack.cookie(), downloadUrl])).stdout;
    linkRuns.push(await seconds(async () => void (await run('curl', ['-sf', '-o', '/dev/null', link])))());
    if (reference) sendfileRuns.push(await seconds(async () => void (await run('curl', ['-sf', '-o', '/dev/null', reference.url])))());
  }
  reference?.stop();
  clearInterval(downloadSampler);
  const catSeconds = median(catRuns);
  const downloadSeconds = median(downloadRuns);
  const linkSeconds = median(linkRuns);
  const sendfileSeconds = sendfileRuns.length > 0 ? median(sendfileRuns) : null;
  console.log(
    JSON.stringify({
      bench: 'transfer',
      mb: +fileMb.toFixed(1),
      runs,
      catMBps: Math.round(fileMb / catSeconds),
      downloadMBps: Math.round(fileMb / downloadSeconds),
      signedLinkMBps: Math.round(fileMb / linkSeconds),
      uploadMBps: Math.round(fileMb / uploadSeconds),
      apiUploadMBps: Math.round(fileMb / apiUploadSeconds),
      apiCpuMsPerUploadedMb: {
        signedLink: +((apiCpuDirect * 1000) / fileMb).toFixed(2),
        throughApi: +((apiCpuThroughApi * 1000) / fileMb).toFixed(2),
      },
      downloadRatio: +(catSeconds / downloadSeconds).toFixed(2),
      signedLinkRatio: +(catSeconds / linkSeconds).toFixed(2),
      // The loopback's own ceiling: the same curl from a bare sendfile(2) server, and the node's link against it.
      sendfileMBps: sendfileSeconds === null ? null : Math.round(fileMb / sendfileSeconds),
      sendfileRatio: sendfileSeconds === null ? null : +(catSeconds / sendfileSeconds).toFixed(2),
      signedLinkVsSendfile: sendfileSeconds === null ? null : +(sendfileSeconds / linkSeconds).toFixed(2),
      peakStackRssMb: peak,
      rssBeforeDownloadsMb,
      peakStackRssDuringDownloadsMb: downloadPeak,
      target: { ratio: 0.8 },
    }),
  );
} finally {
  stack.stop();
  execFileSync('rm', ['-rf', work]);
}

/** The bare sendfile(2) server of `sendfile-reference.py` serving `file`, once it listens; null without python3. */
async function startSendfileReference(file: string, port: number): Promise<{ url: string; stop: () => void } | null> {
  const child = spawn('python3', [path.join(import.meta.dirname, 'sendfile-reference.py'), file, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(false));
    child.once('exit', () => resolve(false));
    createInterface({ input: child.stdout }).once('line', (line) => resolve(line === 'ready'));
  });
  // An error anywhere in the bench ends the process: the reference goes with it.
  process.once('exit', () => child.kill());
  if (!ready) {
    child.kill();
    console.error('bench/files.ts: python3 could not start the sendfile reference; its figures are left out.');
    return null;
  }
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill() };
}
