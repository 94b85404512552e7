import { hash, verify } from '@node-rs/argon2';

// ARCHITECTURE §4: argon2id, m=19 MiB, t=2, p=1 at least.
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
