import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { emailChanges, emailTokens } from '../db/schema.ts';
import { newId, randomToken, sha256 } from './tokens.ts';

export type EmailTokenPurpose = 'verify_email' | 'password_reset';

export const emailTokenTtlMs: Record<EmailTokenPurpose, number> = {
  verify_email: 24 * 60 * 60_000,
  password_reset: 60 * 60_000,
};

/** Issues a single-use token; only its hash is stored. */
export async function issueEmailToken(db: Db, userId: string, purpose: EmailTokenPurpose): Promise<string> {
  const token = randomToken();
  await db.insert(emailTokens).values({
    id: newId(),
    userId,
    purpose,
    tokenHash: sha256(token),
    expiresAt: new Date(Date.now() + emailTokenTtlMs[purpose]),
  });
  return token;
}

/**
 * Marks the token used and returns its user id, or null when it is unknown, used, expired or of another
 * purpose. The conditional update makes two concurrent uses yield one winner.
 */
export async function consumeEmailToken(db: Db, token: string, purpose: EmailTokenPurpose): Promise<string | null> {
  const rows = await db
    .update(emailTokens)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(emailTokens.tokenHash, sha256(token)),
        eq(emailTokens.purpose, purpose),
        isNull(emailTokens.usedAt),
        gt(emailTokens.expiresAt, new Date()),
      ),
    )
    .returning({ userId: emailTokens.userId });
  return rows[0]?.userId ?? null;
}

/**
 * The user a token was issued to, whatever its state (used, expired): only to word a refusal, e.g. a
 * verification link opened a second time. Never grants anything.
 */
export async function emailTokenOwner(db: Db, token: string, purpose: EmailTokenPurpose): Promise<string | null> {
  const [row] = await db
    .select({ userId: emailTokens.userId })
    .from(emailTokens)
    .where(and(eq(emailTokens.tokenHash, sha256(token)), eq(emailTokens.purpose, purpose)))
    .limit(1);
  return row?.userId ?? null;
}

/**
 * Once the password is changed or reset, every link mailed before stops working: a pending change of the
 * address and other reset links. Whoever asked for them may be who the owner is locking out — with the old
 * password they could have asked to move the address to their own mailbox, then confirmed it after the
 * reset and taken the account through a reset of their own.
 */
export async function revokeMailedLinks(db: Db, userId: string): Promise<void> {
  await db.delete(emailChanges).where(and(eq(emailChanges.userId, userId), isNull(emailChanges.usedAt)));
  await db
    .delete(emailTokens)
    .where(and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, 'password_reset'), isNull(emailTokens.usedAt)));
}
