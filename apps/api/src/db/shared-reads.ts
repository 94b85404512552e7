/**
 * One database read per key at a time, for the caches in front of the polled endpoint (sessions, a user's
 * lists). Every tab of a user polls at once after a cache entry runs out, and 64 connections asking for the
 * same missing entry made 64 identical queries (a bench's first second: 26 session reads and 64 list reads
 * for one user). Callers asking while a read runs share its answer. A key forgotten meanwhile (its rows
 * changed) is read afresh by the next caller, and the older read's answer is not kept: before, a read begun
 * before a change could put the old rows back into the cache for its whole lifetime.
 */
export class SharedReads<K, V> {
  private running = new Map<K, Promise<V>>();

  /** `load`'s answer, or the running read's; `keep` stores it, only if no one forgot the key meanwhile. */
  read(key: K, load: () => Promise<V>, keep: (value: V) => void): Promise<V> {
    const running = this.running.get(key);
    if (running) return running;
    const started: Promise<V> = load().then(
      (value) => {
        if (this.running.get(key) === started) {
          this.running.delete(key);
          keep(value);
        }
        return value;
      },
      (err: unknown) => {
        if (this.running.get(key) === started) this.running.delete(key);
        throw err;
      },
    );
    this.running.set(key, started);
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
