import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 bits of randomness, url-safe. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function newId(): string {
  return randomBytes(12).toString('base64url');
}

/** One-shot hashing: called for the session token on every signed-in request. */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

/** What a valid purpose token says: whom it is for, its own random id, and when it expires (ms since epoch). */
export interface PurposeToken {
  subject: string;
  id: string;
  expiresAt: number;
}

/**
 * Short-lived signed tokens for one purpose (the socket `auth` event). Stateless so any API replica can
 * check them; bound to a session so revoking the session revokes the token. Each carries a random id so a
 * caller that wants them single use can remember the spent ids (see socket-tokens.ts).
 */
export function signPurposeToken(secret: string, purpose: string, subject: string, ttlMs: number): string {
  const payload = Buffer.from(JSON.stringify({ p: purpose, s: subject, e: Date.now() + ttlMs, j: newId() })).toString('base64url');
  const mac = createHmac('sha256', secret).update(payload).digest('base64url');
  return `${payload}.${mac}`;
}

export function readPurposeToken(secret: string, purpose: string, token: string): PurposeToken | null {
  const [payload, mac] = token.split('.');
  if (!payload || !mac) return null;
  const expected = createHmac('sha256', secret).update(payload).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const data: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof data !== 'object' || data === null) return null;
    const { p, s, e, j } = data as Record<string, unknown>;
    if (p !== purpose || typeof s !== 'string' || typeof e !== 'number' || typeof j !== 'string' || e < Date.now()) return null;
    return { subject: s, id: j, expiresAt: e };
  } catch {
    return null;
  }
}
