import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../test-support/until.ts';
import { defaultBackOff, nextDelay, supervise, type Supervised } from './supervise.ts';

describe('nextDelay', () => {
  it('waits 1 s, doubling up to 30 s, and starts over after a healthy minute', () => {
    const waits: number[] = [];
    let previous: number | null = null;
    for (let i = 0; i < 7; i++) waits.push((previous = nextDelay(previous, 500)));
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(nextDelay(30_000, 59_000)).toBe(30_000);
    expect(nextDelay(30_000, defaultBackOff.healthyMs)).toBe(1_000);
  });
});

describe('supervise', () => {
  let supervised: Supervised | null = null;
  let dir = '';
  afterEach(async () => {
    await supervised?.stop('SIGTERM');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('starts a child that crashed again, and stops it for good on request', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-supervise-'));
    const marker = path.join(dir, 'started-once');
    const running = path.join(dir, 'running');
    // The first run crashes (exit 1); the second stays up, saying so with a file, until it is signalled.
    // Its handler is in place before the file says it runs: a SIGTERM sent at once must find it.
    const script = `
      const fs = require('node:fs');
      const [marker, running] = process.argv.slice(1);
      if (!fs.existsSync(marker)) { fs.writeFileSync(marker, ''); process.exit(1); }
      process.on('SIGTERM', () => { fs.rmSync(running); process.exit(0); });
      fs.writeFileSync(running, String(process.pid));
      setInterval(() => {}, 1000);
    `;
    const lines: string[] = [];
    let starts = 0;
    supervised = supervise(
      'child',
      () => {
        starts++;
        return spawn(process.execPath, ['-e', script, marker, running], { stdio: 'ignore' });
      },
      { backOff: { firstMs: 50, maxMs: 200, healthyMs: 60_000 }, log: (line) => lines.push(line) },
    );

    await until(
      () => existsSync(running),
      (up) => up,
    );
    expect(starts).toBe(2);
    expect(lines).toEqual([expect.stringMatching(/^child exited \(code 1\) after [\d.]+ s; starting it again in 0\.05 s\.$/)]);

    await supervised.stop('SIGTERM');
    supervised = null;
    expect(existsSync(running)).toBe(false); // it exited through its SIGTERM handler
    expect(starts).toBe(2);
    expect(lines).toHaveLength(1);
  });

  it('does not start again a child that exits with a final code (the join proxy that cannot bind its port)', async () => {
    const lines: string[] = [];
    let starts = 0;
    let exited: () => void = () => undefined;
    const exit = new Promise<void>((resolve) => (exited = resolve));
    supervised = supervise(
      'proxy',
      () => {
        starts++;
        const child = spawn(process.execPath, ['-e', 'process.exit(78)'], { stdio: 'ignore' });
        child.once('exit', () => setImmediate(exited));
        return child;
      },
      { backOff: { firstMs: 10, maxMs: 10, healthyMs: 60_000 }, log: (line) => lines.push(line), finalExitCodes: [78] },
    );
    await exit;
    expect(lines).toEqual(['proxy exited (code 78) and is not started again; the rest keeps running.']);
    // Past the back-off it would have used, still one start.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(starts).toBe(1);
  });
});
