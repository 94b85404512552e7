import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServerState } from '@spawnpoint/contracts';
import { BackupCoordinator, recoverInterruptedSwaps, STORED_COPY_HOLD_MS } from './backup-coordinator.ts';
import { ConsoleBuffer } from './console-buffer.ts';
import { Sandbox, SandboxError } from '../files/sandbox.ts';

/** What an agent killed in the middle of a restore, or of fetching a folder from storage, finds at its next start. */
let dir: string;
let outside: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-swaps-'));
  outside = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-swaps-outside-'));
  writeFileSync(path.join(outside, 'precious.txt'), 'not the tenant’s');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const folder = (name: string, files: Record<string, string>) => {
  mkdirSync(path.join(dir, name), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, name, file), text);
};

describe('folder swaps cut short', () => {
  it('killed while filling the staging folder: the staging folder goes, the server folder is kept as it was', async () => {
    folder('srv1', { 'level.dat': 'current world' });
    folder('srv1.restore-m1a2b3', { 'level.dat': 'half of the backup' });
    expect(await recoverInterruptedSwaps(dir)).toEqual({ putBack: [], removed: ['srv1.restore-m1a2b3'] });
    expect(readdirSync(dir)).toEqual(['srv1']);
    expect(readFileSync(path.join(dir, 'srv1', 'level.dat'), 'utf8')).toBe('current world');
  });

  it('killed between the two renames: the folder last known good goes back where it was', async () => {
    folder('srv2.old-k9', { 'level.dat': 'the world before the restore' });
    folder('srv2.restore-k9', { 'level.dat': 'the restored world' });
    expect(await recoverInterruptedSwaps(dir)).toEqual({ putBack: ['srv2'], removed: ['srv2.restore-k9'] });
    expect(readFileSync(path.join(dir, 'srv2', 'level.dat'), 'utf8')).toBe('the world before the restore');
  });

  it('killed after the swap: the old folder is removed, through a link the game planted without following it', async () => {
    folder('srv3', { 'level.dat': 'the restored world' });
    folder('srv3.old-z1', { 'level.dat': 'the old world' });
    symlinkSync(outside, path.join(dir, 'srv3.old-z1', 'escape'));
    expect(await recoverInterruptedSwaps(dir)).toEqual({ putBack: [], removed: ['srv3.old-z1'] });
    expect(readdirSync(dir)).toEqual(['srv3']);
    expect(readFileSync(path.join(outside, 'precious.txt'), 'utf8')).toBe('not the tenant’s');
    expect(existsSync(path.join(dir, 'srv3', 'level.dat'))).toBe(true);
  });

  it('leaves server folders whose names merely look alike, and a missing folder of servers, alone', async () => {
    folder('srv4-restore-notes', { 'a.txt': 'a' });
    expect(await recoverInterruptedSwaps(dir)).toEqual({ putBack: [], removed: [] });
    expect(await recoverInterruptedSwaps(path.join(dir, 'nowhere'))).toEqual({ putBack: [], removed: [] });
  });
});

describe('a folder going to shared storage', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends the writes begun before and refuses new ones while it is packed and until its copy here goes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    let state: ServerState = 'offline';
    const server = {
      dir: path.join(dir, 'srv5'),
      console: new ConsoleBuffer(() => undefined),
      state: () => state,
      setState: (next: ServerState) => void (state = next),
      quotaBytes: () => 1024 * 1024,
      send: () => false,
      closeSandbox: async () => undefined,
    };
    const sandbox = await Sandbox.open(server.dir, server.quotaBytes());
    const coordinator = new BackupCoordinator(server, (message) => new SandboxError('INVALID_STATE', message));
    // An upload that began while the server was offline, still sending when the folder goes to storage.
    const slow = new PassThrough();
    const uploading = sandbox.writeFrom('/world.zip', slow, { overwrite: true });
    slow.write('the first bytes');
    const packed = await coordinator.upload(sandbox, async () => {
      expect(state).toBe('uploading');
      await expect(uploading).rejects.toMatchObject({ code: 'INVALID_STATE', message: expect.stringMatching(/going to sleep/) });
      await expect(sandbox.writeFrom('/new.txt', Readable.from(['x']), { overwrite: true })).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });
      return readdirSync(server.dir);
    });
    // What was packed held nothing half written, and nothing was added while packing.
    expect(packed).toEqual([]);
    expect(state).toBe('offline');
    // Stored: the node's copy is about to go, so writes stay refused until it has (or for a while at most)…
    await expect(sandbox.writeFrom('/new.txt', Readable.from(['x']), { overwrite: true })).rejects.toMatchObject({ code: 'INVALID_STATE' });
    vi.advanceTimersByTime(STORED_COPY_HOLD_MS);
    expect(await sandbox.writeFrom('/new.txt', Readable.from(['x']), { overwrite: true })).toBe(1);
    // …while a packing that failed leaves the folder where it was, open to writes at once.
    await expect(
      coordinator.upload(sandbox, async () => {
        throw new Error('the bucket is unreachable');
      }),
    ).rejects.toThrow('unreachable');
    expect(await sandbox.writeFrom('/after.txt', Readable.from(['y']), { overwrite: true })).toBe(1);
    await sandbox.close();
  });
});
