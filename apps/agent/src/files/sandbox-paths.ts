/*
 * The names a server folder's paths may have, and what a failed file operation says to the user: the first
 * line of the sandbox (sandbox.ts). Every path is split and checked here before anything is opened.
 */
import type { Stats } from 'node:fs';

export class SandboxError extends Error {
  constructor(
    readonly code: 'INVALID_INPUT' | 'NOT_FOUND' | 'INVALID_STATE' | 'DISK_LIMIT' | 'NO_PERMISSION',
    message: string,
  ) {
    super(message);
  }
}

export interface Entry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  modifiedAt: string;
  /** Permission bits. */
  mode: number;
}

/**
 * A user path as typed (`"/world/level.dat"`, checked strictly by `pathParts`), or components the agent
 * already holds (archive entries of our own backups, walk results), checked only for what can never be a
 * name: empty, `.`, `..`, `/` and NUL. Backups must restore whatever names the game process created.
 */
export type SandboxPath = string | readonly string[];

export const MAX_DEPTH = 64;
const MAX_NAME = 255;

/**
 * Splits a user path ("/world/level.dat", "world/level.dat") into safe components. Refuses `..`, NUL and
 * control characters, and over-long names; `.` and empty parts are dropped. The root is `[]`.
 */
export function pathParts(userPath: string): string[] {
  if (typeof userPath !== 'string' || userPath.length > 4096) throw new SandboxError('INVALID_INPUT', 'The path is too long.');
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(userPath)) throw new SandboxError('INVALID_INPUT', 'The path contains characters that are not allowed.');
  return checkedParts(userPath.split('/').filter((p) => p !== '' && p !== '.'));
}

function checkedParts(parts: readonly string[]): string[] {
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..' || part.includes('/') || part.includes('\0'))
      throw new SandboxError('INVALID_INPUT', 'The path may not leave the server folder.');
    if (Buffer.byteLength(part) > MAX_NAME) throw new SandboxError('INVALID_INPUT', 'A name in the path is too long (255 bytes at most).');
  }
  if (parts.length > MAX_DEPTH) throw new SandboxError('INVALID_INPUT', 'The path is too deep.');
  return [...parts];
}

export const toParts = (p: SandboxPath): string[] => (typeof p === 'string' ? pathParts(p) : checkedParts(p));

export function typeOf(st: Stats): Entry['type'] {
  return st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'other';
}

export function mapError(err: unknown, what: string): never {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (err instanceof SandboxError) throw err;
  if (code === 'ENOENT') throw new SandboxError('NOT_FOUND', `${what} does not exist.`);
  if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK')
    throw new SandboxError('INVALID_INPUT', `${what} goes through a link or a file, which is not allowed.`);
  if (code === 'EEXIST' || code === 'ENOTEMPTY') throw new SandboxError('INVALID_STATE', `${what} already exists.`);
  if (code === 'ENXIO' || code === 'EISDIR') throw new SandboxError('INVALID_INPUT', `${what} is not a regular file.`);
  if (code === 'ENAMETOOLONG') throw new SandboxError('INVALID_INPUT', `The name of ${what} is too long.`);
  if (code === 'ENOSPC' || code === 'EDQUOT') throw new SandboxError('DISK_LIMIT', 'The disk is full.');
  // The folder changed under us (game code moving things) or refused: the user's to retry, not our failure.
  if (code === 'EINVAL' || code === 'EPERM' || code === 'EACCES' || code === 'EBUSY' || code === 'EXDEV')
    throw new SandboxError('INVALID_INPUT', `${what} cannot be changed that way right now.`);
  if (code === 'EMFILE' || code === 'ENFILE') throw new SandboxError('INVALID_STATE', 'The node is busy. Please try again in a moment.');
  throw err;
}
