import { vi } from 'vitest';

/** Waits until `read()` gives a value `ok` accepts, and returns it; fails with the last value seen. */
export async function until<T>(read: () => T | Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  let last: T | undefined;
  try {
    const box = await vi.waitUntil(
      async () => {
        last = await read();
        return ok(last) ? { value: last } : false;
      },
      { timeout: timeoutMs, interval: 50 },
    );
    return box.value;
  } catch {
    throw new Error(`condition not met in ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
  }
}
