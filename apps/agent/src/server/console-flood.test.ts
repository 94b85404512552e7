import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../../test-support/until.ts';
import { CONSOLE_SKIP_BYTES, launchDetached } from './detached-process.ts';
import type { RuntimeProcess } from '../runtimes/types.ts';

/**
 * A game that prints at disk speed (a plugin writing newlines in a loop): the agent reads a bounded share
 * of it, skips the rest with a line that says so, and gives the log's blocks back, so neither the agent's
 * CPU nor the node's disk (the log is outside the server's quota) is the flood's.
 */
let runDir: string;
let proc: RuntimeProcess;
const FLOOD_BYTES = 128 * 1024 * 1024;

beforeAll(async () => {
  runDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-flood-'));
});
afterAll(async () => {
  proc?.kill('SIGKILL');
  await rm(runDir, { recursive: true, force: true });
});

describe('a console flood', () => {
  it('is read in part, the rest skipped and said, and its disk given back', { timeout: 120_000 }, async () => {
    let read = 0;
    const notices: string[] = [];
    // 128 MB of empty lines as fast as the disk takes them, then the game idles.
    proc = await launchDetached(
      {
        command: '/bin/sh',
        args: ['-c', `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' '\\n'; echo flood-done; exec sleep 600`],
        cwd: runDir,
        env: { PATH: '/usr/bin:/bin' },
        readOnly: [],
      },
      runDir,
    );
    proc.onOutput((chunk) => {
      read += chunk.length;
      const text = chunk.toString('utf8');
      if (text.includes('[Spawnpoint]')) notices.push(text.trim());
      if (text.includes('flood-done')) notices.push('flood-done');
    });
    // The end of the flood shows (what is new is shown), after a line saying what was skipped.
    await until(
      () => notices,
      (seen) => seen.includes('flood-done'),
      110_000,
    );
    expect(notices[0]).toMatch(/^\[Spawnpoint\] \d+ MB of console output skipped: the server wrote faster than the console can show\.$/);
    // Most of the flood was never split into lines by the agent.
    expect(read).toBeLessThan(FLOOD_BYTES / 2);
    // The log's blocks are given back once read (a hole punched after the last pass, which a busy machine
    // may finish a moment after the flood's end shows): it holds no more than the skip threshold and the
    // reclaim margin, not the flood.
    const log = await until(
      () => stat(path.join(runDir, 'console.log')),
      (s) => s.blocks * 512 < CONSOLE_SKIP_BYTES + 16 * 1024 * 1024,
      10_000,
    );
    expect(log.size).toBeGreaterThanOrEqual(FLOOD_BYTES);
  });
});
