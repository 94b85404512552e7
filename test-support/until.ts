import { setTimeout as sleep } from 'node:timers/promises';
import { vi } from 'vitest';

/**
 * Waits until `read()` gives a value `ok` accepts, and returns it; fails with the last value seen. A read
 * that throws counts as not yet (a file renamed between listing and reading it, a request refused while a
 * process restarts), and its error is in the failure's message. `intervalMs`: how often it reads (a read
 * that is a request counts against the API's per-address budget on long waits).
 */
export async function until<T>(read: () => T | Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000, intervalMs = 50): Promise<T> {
  let last: T | undefined;
  let lastError: unknown = undefined;
  // A read still unanswered when time runs out: `last` is then an older answer, and the message says so.
  let reading = false;
  const check = async () => {
    reading = true;
    try {
      last = await read();
      lastError = undefined;
      return ok(last) ? { value: last } : false;
    } catch (err) {
      // vi.waitUntil would stop at the first throw, and the message below would call it a timeout.
      lastError = err;
      return false;
    } finally {
      reading = false;
    }
  };
  try {
    // Outside a test run (`npm run cluster` starts processes with the tests' helpers) there is no `vi`.
    const box = process.env.VITEST
      ? await vi.waitUntil(check, { timeout: timeoutMs, interval: intervalMs })
      : await poll(check, timeoutMs, intervalMs);
    return box.value;
  } catch {
    const error = lastError === undefined ? '' : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
    const hanging = reading ? '; the latest read was still waiting for its answer' : '';
    throw new Error(`condition not met in ${timeoutMs} ms (last: ${JSON.stringify(last)}${error}${hanging})`);
  }
}

async function poll<T>(check: () => Promise<false | { value: T }>, timeoutMs: number, intervalMs: number): Promise<{ value: T }> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const box = await check();
    if (box) return box;
    if (Date.now() > end) throw new Error('timed out');
    await sleep(intervalMs);
  }
}
