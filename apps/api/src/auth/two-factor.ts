import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { RECOVERY_CODE_COUNT } from '@spawnpoint/contracts';
import { and, eq, isNull, lt } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import type { Db } from '../db/index.ts';
import { recoveryCodes, twoFactor } from '../db/schema.ts';
import { newId, sha256 } from './tokens.ts';

const PERIOD = 30;

/** AES-256-GCM with a key derived from the app secret; `iv.tag.ciphertext`, base64url. */
export function encryptSecret(appSecret: string, plain: string): string {
  const key = createHash('sha256').update(`two-factor:${appSecret}`).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

export function decryptSecret(appSecret: string, sealed: string): string {
  const [iv, tag, data] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !data) throw new Error('bad sealed secret');
  const key = createHash('sha256').update(`two-factor:${appSecret}`).digest();
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}

export function newTotp(emailAddress: string, base32?: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: 'Spawnpoint',
    label: emailAddress,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: base32 ? OTPAuth.Secret.fromBase32(base32) : new OTPAuth.Secret({ size: 20 }),
  });
}

/**
 * Checks a six-digit code against ±1 step and records the step, so the same code (or any code of an
 * earlier step) is never accepted twice. The conditional update makes two concurrent uses of one code
 * yield one success.
 */
export async function acceptTotp(db: Db, appSecret: string, userId: string, emailAddress: string, token: string): Promise<boolean> {
  const [row] = await db.select().from(twoFactor).where(eq(twoFactor.userId, userId)).limit(1);
  if (!row) return false;
  const totp = newTotp(emailAddress, decryptSecret(appSecret, row.secretEncrypted));
  const delta = totp.validate({ token, window: 1 });
  if (delta === null) return false;
  const step = Math.floor(Date.now() / 1000 / PERIOD) + delta;
  const updated = await db
    .update(twoFactor)
    .set({ lastStep: step })
    .where(and(eq(twoFactor.userId, userId), lt(twoFactor.lastStep, step)))
    .returning({ userId: twoFactor.userId });
  return updated.length === 1;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
function recoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => ALPHABET[b % 32]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Replaces the account's recovery codes; only their hashes are kept. */
export async function issueRecoveryCodes(db: Db, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);
  await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await db.insert(recoveryCodes).values(codes.map((code) => ({ id: newId(), userId, codeHash: sha256(code) })));
  return codes;
}

export async function useRecoveryCode(db: Db, userId: string, code: string): Promise<boolean> {
  const used = await db
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, sha256(code)), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length === 1;
}

/** A six-digit code or an unused recovery code. */
export async function acceptSecondFactor(
  db: Db,
  appSecret: string,
  user: { id: string; emailAddress: string },
  token: string,
): Promise<'totp' | 'recovery' | null> {
  if (/^\d{6}$/.test(token)) return (await acceptTotp(db, appSecret, user.id, user.emailAddress, token)) ? 'totp' : null;
  return (await useRecoveryCode(db, user.id, token)) ? 'recovery' : null;
}
