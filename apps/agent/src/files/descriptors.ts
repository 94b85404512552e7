import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/*
 * Open descriptors of a server's folder. A FileHandle left for the garbage collector to close ends the
 * process on current Node (26: "closed during garbage collection … now considered an error"), so every
 * error path after an open closes its handle.
 */

/** A path through an open descriptor (and a name in it): never re-resolved from the folder's path. */
export function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** Closes the handle, then rethrows `err`: for a failure right after an open. */
export async function closeAndThrow(handle: FileHandle, err: unknown): Promise<never> {
  await handle.close().catch(() => undefined);
  throw err;
}

/** The handle's stat; the handle is closed when that fails. */
export async function statOrClose(handle: FileHandle): Promise<Stats> {
  return handle.stat().catch((err: unknown) => closeAndThrow(handle, err));
}

/** `work`'s result; when it fails, `close` runs first (the handle that the failure would leave open). */
export async function closingOnError<T>(work: Promise<T>, close: () => Promise<void>): Promise<T> {
  return work.catch(async (err: unknown) => {
    await close().catch(() => undefined);
    throw err;
  });
}
