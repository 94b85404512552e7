import { mkdtempSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAndThrow, closingOnError } from './descriptors.ts';

// A FileHandle the garbage collector closes ends the agent on Node 26: every failure after an open closes it.
describe('descriptors on an error path', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-descriptors-'));

  it('closes the handle, then gives the failure on', async () => {
    const handle = await open(folder, 'r');
    const failure = new Error('the folder went');
    await expect(closeAndThrow(handle, failure)).rejects.toBe(failure);
    expect(handle.fd).toBe(-1);
  });

  it('runs the closing work when what follows the open fails, and only then', async () => {
    const kept = await open(folder, 'r');
    expect(await closingOnError(Promise.resolve('fine'), () => kept.close())).toBe('fine');
    expect(kept.fd).not.toBe(-1);
    await expect(closingOnError(Promise.reject(new Error('ENOENT')), () => kept.close())).rejects.toThrow('ENOENT');
    expect(kept.fd).toBe(-1);
  });
});
