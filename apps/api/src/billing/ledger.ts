import { BALANCE_MAX_CENTS, countryName, type BillingInfo, type LedgerKind } from '@spawnpoint/contracts';
import { and, eq, sql } from 'drizzle-orm';
import { newId } from '../auth/tokens.ts';
import type { Db } from '../db/index.ts';
import { billingProfiles, ledgerEntries, servers, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { DbOrTx } from '../servers/activity.ts';
import type { LedgerRow } from '../db/rows.ts';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** An account's balance: the sum of its ledger rows. */
export async function balanceOf(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db
    .select({ sum: sql<string | null>`sum(${ledgerEntries.amountCents})` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.userId, userId));
  return Number(row?.sum ?? 0);
}

/**
 * Locks the account for a change of its balance: every write to one account's ledger runs under this
 * row lock inside its transaction, so concurrent purchases see each other's debits and none overspends.
 */
export async function lockAccount(tx: Tx, userId: string): Promise<void> {
  const [row] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
  if (!row) throw new ApiError('NOT_AUTHENTICATED');
}

export interface Posting {
  userId: string;
  amountCents: number;
  kind: LedgerKind;
  reference: string;
  description: string;
  /** Unique per account: a second posting with it writes nothing and answers the first row. */
  idempotencyKey?: string | null;
  /**
   * May take the balance below zero: money the provider took back (a refund, a chargeback) leaves the
   * account owing it, whatever was bought with it meanwhile.
   */
  mayGoNegative?: boolean;
}

/** The most a balance may hold once a top-up of `amountCents` is paid, as the message the payer sees. */
export const balanceCeilingMessage = `A balance holds at most $${BALANCE_MAX_CENTS / 100}.`;

/** The row an idempotency key already wrote for an account, if any. */
export async function rowByKey(db: DbOrTx, userId: string, idempotencyKey: string): Promise<LedgerRow | null> {
  const [row] = await db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.idempotencyKey, idempotencyKey)))
    .limit(1);
  return row ?? null;
}

/**
 * Writes one ledger row, in the caller's transaction, with the account locked (lockAccount first). A debit
 * that would take the balance below zero is INSUFFICIENT_BALANCE: nothing is written and the caller's
 * transaction rolls back. A key already used
 * answers its first row and writes nothing (`replayed`).
 */
export async function post(tx: Tx, posting: Posting): Promise<{ row: LedgerRow; replayed: boolean }> {
  if (!Number.isSafeInteger(posting.amountCents)) throw new Error('ledger amounts are whole cents');
  if (posting.idempotencyKey) {
    const earlier = await rowByKey(tx, posting.userId, posting.idempotencyKey);
    if (earlier) return { row: earlier, replayed: true };
  }
  const balance = await balanceOf(tx, posting.userId);
  // Only a debit can be refused for the balance: a credit to an account that owes (after a chargeback)
  // brings it nearer zero and always lands.
  if (posting.amountCents < 0 && balance + posting.amountCents < 0 && !posting.mayGoNegative) throw new ApiError('INSUFFICIENT_BALANCE');
  // No ceiling here: it bounds what may be paid in, so it is checked when a top-up starts (Payments.start).
  // Money the provider has confirmed taking always lands, or the payer would have paid for nothing.
  const [row] = await tx
    .insert(ledgerEntries)
    .values({
      id: newId(),
      userId: posting.userId,
      amountCents: posting.amountCents,
      kind: posting.kind,
      reference: posting.reference,
      description: posting.description,
      idempotencyKey: posting.idempotencyKey ?? null,
      billedTo: await billedTo(tx, posting.userId),
    })
    .returning();
  return { row: row!, replayed: false };
}

/** The billing information as receipt lines (name, address, postal code and city, country, VAT number). */
export function billingLines(info: BillingInfo): string[] {
  return [
    info.name,
    info.addressLine1,
    info.addressLine2,
    [info.postalCode, info.city].filter(Boolean).join(' '),
    countryName(info.country) ?? info.country,
    info.vatId ? `VAT ${info.vatId}` : '',
  ].filter((line) => line !== '');
}

export async function billingInfoOf(db: DbOrTx, userId: string): Promise<BillingInfo | null> {
  const [row] = await db.select().from(billingProfiles).where(eq(billingProfiles.userId, userId)).limit(1);
  if (!row) return null;
  const { userId: _user, updatedAt: _at, ...info } = row;
  return info;
}

async function billedTo(db: DbOrTx, userId: string): Promise<string[]> {
  const info = await billingInfoOf(db, userId);
  return info ? billingLines(info) : [];
}

/** Refuses a payment or purchase of an account without billing information (spec: BILLING_INFO_REQUIRED). */
export async function requireBillingInfo(db: DbOrTx, userId: string): Promise<void> {
  if (!(await billingInfoOf(db, userId))) throw new ApiError('BILLING_INFO_REQUIRED');
}

/**
 * A purchase from the balance (a plan, a renewal, a shop item): the debit and, when the buyer came through
 * an affiliate's link, the affiliate's commission, both in the caller's transaction, so neither is written
 * without the other. The referrer's account is not locked: a credit cannot make a balance negative, and a
 * debit of theirs running meanwhile only sees less than they have.
 */
export async function purchase(tx: Tx, posting: Posting, commissionPercent: number): Promise<{ row: LedgerRow; replayed: boolean }> {
  if (posting.amountCents > 0) throw new Error('a purchase is a debit');
  const done = await post(tx, posting);
  if (done.replayed || commissionPercent <= 0 || posting.amountCents === 0) return done;
  const [buyer] = await tx.select({ referral: users.referral }).from(users).where(eq(users.id, posting.userId)).limit(1);
  if (!buyer?.referral) return done;
  const [referrer] = await tx.select({ id: users.id }).from(users).where(eq(users.referralCode, buyer.referral)).limit(1);
  const commission = Math.floor((-posting.amountCents * commissionPercent) / 100);
  if (!referrer || referrer.id === posting.userId || commission <= 0) return done;
  await post(tx, {
    userId: referrer.id,
    amountCents: commission,
    kind: 'commission',
    reference: done.row.id,
    description: `Commission: ${commissionPercent}% of a purchase by an account you referred`,
    idempotencyKey: `commission-${done.row.id}`,
  });
  return done;
}

/**
 * The start of a purchase for a server, inside its transaction: the owner's account locked, a replayed
 * idempotency key answered with null (the first purchase already happened), billing information required,
 * and the server's row locked and returned.
 */
export async function openPurchase(
  tx: Tx,
  server: { id: string; ownerId: string },
  idempotencyKey: string,
  /** What the purchase's ledger row names (`reference`), and older spellings of it that count as the same. */
  reference: { now: string; also?: string[] },
) {
  await lockAccount(tx, server.ownerId);
  const earlier = await rowByKey(tx, server.ownerId, idempotencyKey);
  if (earlier) {
    // A replay of the same purchase answers the state now; the key reused for another purchase is a mistake
    // to say, not a success that bought nothing (as top-ups refuse another amount).
    if (earlier.reference !== reference.now && !reference.also?.includes(earlier.reference))
      throw new ApiError('INVALID_INPUT', undefined, 'This idempotency key was used for another purchase. Start a new one.');
    return null;
  }
  await requireBillingInfo(tx, server.ownerId);
  const [row] = await tx.select().from(servers).where(eq(servers.id, server.id)).for('no key update');
  if (!row) throw new ApiError('NOT_FOUND');
  return row;
}
