/**
 * One database read per key at a time, for the caches in front of the polled endpoint (sessions, a user's
 * lists). Every tab of a user polls at once after a cache entry runs out, and 64 connections asking for the
 * same missing entry made 64 identical queries (a bench's first second: 26 session reads and 64 list reads
 * for one user). Callers asking while a read runs share its answer. A key forgotten meanwhile (its rows
 * changed) is read afresh by the next caller, and the older read's answer is not kept: before, a read begun
 * before a change could put the old rows back into the cache for its whole lifetime.
 */
// Longer than any healthy read of one row or one user's lists; a caller after that starts a read of its own.
const SHARE_MS = 5_000;

export class SharedReads<K, V> {
  private running = new Map<K, { read: Promise<V>; at: number }>();

  /**
   * `load`'s answer, or the running read's when it began less than `SHARE_MS` ago (a read stuck on a
   * connection that died silently must not hold up every later caller); `keep` stores it, only if no one
   * forgot the key, nor started a newer read of it, meanwhile.
   */
  read(key: K, load: () => Promise<V>, keep: (value: V) => void): Promise<V> {
    const running = this.running.get(key);
    if (running && Date.now() - running.at < SHARE_MS) return running.read;
    const started: Promise<V> = load().then(
      (value) => {
        if (this.running.get(key)?.read === started) {
          this.running.delete(key);
          keep(value);
        }
        return value;
      },
      (err: unknown) => {
        if (this.running.get(key)?.read === started) this.running.delete(key);
        throw err;
      },
    );
    this.running.set(key, { read: started, at: Date.now() });
    return started;
  }

  /** The key's rows changed: a read running now is not kept, and the next caller reads again. */
  forget(key: K): void {
    this.running.delete(key);
  }

  /** As `forget`, for every key (when the changed rows cannot be told by key). */
  forgetAll(): void {
    this.running.clear();
  }
}
