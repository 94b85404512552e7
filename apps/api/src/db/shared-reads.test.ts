import { describe, expect, it, vi } from 'vitest';
import { SharedReads } from './shared-reads.ts';

/** A read that answers when told to, counting how often it was started. */
function controlled<V>() {
  const started: ((value: V) => void)[] = [];
  const failures: ((err: Error) => void)[] = [];
  return {
    load: () =>
      new Promise<V>((resolve, reject) => {
        started.push(resolve);
        failures.push(reject);
      }),
    started,
    failures,
  };
}

describe('SharedReads', () => {
  it('reads once for callers that ask while the read runs, and all get its answer', async () => {
    const reads = new SharedReads<string, string>();
    const db = controlled<string>();
    const kept: string[] = [];
    const asked = Array.from({ length: 64 }, () => reads.read('user-1', db.load, (v) => kept.push(v)));
    expect(db.started).toHaveLength(1);
    db.started[0]?.('rows');
    expect(await Promise.all(asked)).toEqual(Array.from({ length: 64 }, () => 'rows'));
    // Kept once, and the next caller (the cache's job now) starts a read of its own.
    expect(kept).toEqual(['rows']);
    void reads.read('user-1', db.load, () => undefined);
    expect(db.started).toHaveLength(2);
  });

  it('does not keep what a read found before its key was forgotten; the next caller reads again', async () => {
    const reads = new SharedReads<string, string>();
    const db = controlled<string>();
    const kept: string[] = [];
    const before = reads.read('user-1', db.load, (v) => kept.push(v));
    // The user's rows change while the read runs.
    reads.forget('user-1');
    const after = reads.read('user-1', db.load, (v) => kept.push(v));
    expect(db.started).toHaveLength(2);
    db.started[1]?.('new rows');
    db.started[0]?.('old rows');
    // The caller who asked before the change gets what its read found; only the fresh rows are kept.
    expect(await before).toBe('old rows');
    expect(await after).toBe('new rows');
    expect(kept).toEqual(['new rows']);
  });

  it('passes a failed read to everyone who waited on it, keeps nothing, and lets the next caller try again', async () => {
    const reads = new SharedReads<string, string>();
    const db = controlled<string>();
    const kept: string[] = [];
    const asked = [reads.read('k', db.load, (v) => kept.push(v)), reads.read('k', db.load, (v) => kept.push(v))];
    db.failures[0]?.(new Error('connection lost'));
    for (const one of asked) await expect(one).rejects.toThrow('connection lost');
    expect(kept).toEqual([]);
    const again = reads.read('k', db.load, (v) => kept.push(v));
    expect(db.started).toHaveLength(2);
    db.started[1]?.('rows');
    expect(await again).toBe('rows');
  });

  it('forgets every key at once', async () => {
    const reads = new SharedReads<string, string>();
    const db = controlled<string>();
    const kept: string[] = [];
    const a = reads.read('a', db.load, (v) => kept.push(v));
    const b = reads.read('b', db.load, (v) => kept.push(v));
    reads.forgetAll();
    db.started[0]?.('a rows');
    db.started[1]?.('b rows');
    await Promise.all([a, b]);
    expect(kept).toEqual([]);
  });
});

describe('SharedReads and a read that never answers', () => {
  it('stops sharing a read after 5 s: a caller then starts its own, whose answer is kept', async () => {
    vi.useFakeTimers();
    try {
      const reads = new SharedReads<string, string>();
      const db = controlled<string>();
      const kept: string[] = [];
      // Stuck on a connection that died without a word.
      const stuck = reads.read('user-1', db.load, (v) => kept.push(v));
      vi.advanceTimersByTime(4_000);
      void reads.read('user-1', db.load, (v) => kept.push(v));
      expect(db.started).toHaveLength(1);
      vi.advanceTimersByTime(1_500);
      const fresh = reads.read('user-1', db.load, (v) => kept.push(v));
      expect(db.started).toHaveLength(2);
      db.started[1]?.('rows');
      expect(await fresh).toBe('rows');
      // The stuck read answering late keeps nothing over the newer answer.
      db.started[0]?.('late rows');
      expect(await stuck).toBe('late rows');
      expect(kept).toEqual(['rows']);
    } finally {
      vi.useRealTimers();
    }
  });
});
