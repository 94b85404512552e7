import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { ApiError } from '../http/errors.ts';

// argon2id, m=19 MiB, t=2, p=1 at least (docs/guide.md, "Passwords").
const options = {
  algorithm: 2 /* Argon2id; the const enum cannot be imported under verbatimModuleSyntax */,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

let dummyHash: Promise<string> | null = null;

/** Verifies against the stored hash, or burns the same time on a dummy hash when there is no account. */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    dummyHash ??= hashPassword('spawnpoint-dummy-password-for-timing');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}

/** The hash an unknown address is checked against; for tests that it costs what a real one costs. */
export function dummyPasswordHash(): Promise<string> | null {
  return dummyHash;
}

/**
 * The most common passwords (zxcvbn-ts's list of ≈ 49,000, from published breaches): the first an attacker
 * tries, so refused for a new password whatever their length, as NIST SP 800-63B asks of a blocklist.
 */
let common: Set<string> | null = null;
export const COMMON_PASSWORD_MESSAGE = 'This password is one of the most common ones, which are tried first. Choose another.';

/** Throws INVALID_INPUT naming `field` when `password` is on the common list (letter case aside). */
export function refuseCommonPassword(password: string, field: string): void {
  common ??= new Set(dictionary['passwords-common'] as string[]);
  if (common.has(password.toLowerCase()))
    throw new ApiError('INVALID_INPUT', { [field]: COMMON_PASSWORD_MESSAGE }, COMMON_PASSWORD_MESSAGE);
}
