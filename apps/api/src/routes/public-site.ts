import { createHash, randomBytes } from 'node:crypto';
import { endpoints, maskEmail } from '@spawnpoint/contracts';
import { and, asc, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { newId } from '../auth/tokens.ts';
import { optionalSession, type Given } from '../context.ts';
import { giveawayEntries, giveaways, ledgerEntries, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import type { DbOrTx } from '../servers/activity.ts';
import { offeredPlans } from '../servers/plan-limits.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config' | 'database' | 'log' | 'sessions', 'directory'>;

/** How long after registering an account can still name who referred it (`POST /v1/referral`). */
export const REFERRAL_ATTACH_DAYS = 7;
/** How many referrers up the chain a later referral is checked against (rings longer than this are not looked for). */
const REFERRAL_CHAIN_CHECKED = 20;

export const GIVEAWAY = { slug: '10-minecraft-accounts', title: '10 Minecraft Java Edition accounts', winnersCount: 10 };
/**
 * Fair, reproducible draw: entries ordered by SHA-256(seed + entry id); the first `count` win. The seed
 * is recorded, so anyone with the entry list can recompute the winners.
 */
export function drawWinners(seed: string, entryIds: string[], winners: number): string[] {
  return [...entryIds]
    .map((id) => ({ id, key: createHash('sha256').update(`${seed}:${id}`).digest('hex') }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, winners)
    .map((e) => e.id);
}

/** The public site's data: plans, the public server list, referrals and the giveaway. */
export function publicSiteRoutes(route: Route, ctx: Services): void {
  publicListRoutes(route, ctx);
  referralRoutes(route, ctx);
  giveawayRoutes(route, ctx);
}

/** The plans on offer and the servers listed publicly, with their icons. */
function publicListRoutes(route: Route, ctx: Services): void {
  route(endpoints.plans, async () => offeredPlans(ctx.config));

  route(endpoints.publicServers, async ({ query }) => ctx.game.directory.listing.page(query));
  route(endpoints.publicServer, async ({ params: { name } }) => ctx.game.directory.listing.byName(name));
  // The address carries the icon's digest, so a browser keeps it until the icon changes.
  route(endpoints.publicServerIcon, async ({ reply, params: { name } }) => {
    const icon = await ctx.game.directory.listing.icon(name);
    if (!icon) throw new ApiError('NOT_FOUND');
    return reply
      .header('content-type', 'image/png')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(icon);
  });
}

/** A referral code: credited to a new account, and an account's own code and commissions. */
function referralRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  // The `r` parameter kept by the browser, sent once the visitor is signed in; the same answer for any code.
  // Only for a new account that has not paid or bought anything yet, and never for an account it referred,
  // directly or through others (`referredBy`): accounts naming each other would earn on all they buy.
  route(endpoints.referralCredit, async ({ session, body: { referral } }) => {
    const user = session.user;
    const fresh = Date.now() - user.createdAt.getTime() < REFERRAL_ATTACH_DAYS * 24 * 60 * 60 * 1000;
    if (!user.referral && fresh) {
      const attached = await db.transaction(async (tx) => {
        // One attachment at a time across the service: two accounts naming each other at once would each
        // find no ring yet and both attach. Rare (a week after sign-up at most), so one lock is enough.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('spawnpoint:referral-attach'))`);
        const [referrer] = await tx
          .select({ id: users.id, referral: users.referral })
          .from(users)
          .where(eq(users.referralCode, referral))
          .limit(1);
        const [paid] = await tx.select({ id: ledgerEntries.id }).from(ledgerEntries).where(eq(ledgerEntries.userId, user.id)).limit(1);
        if (!referrer || referrer.id === user.id || paid || (await referredBy(tx, referrer.referral, user.referralCode))) return false;
        const updated = await tx
          .update(users)
          .set({ referral })
          .where(and(eq(users.id, user.id), isNull(users.referral)))
          .returning({ id: users.id });
        return updated.length > 0;
      });
      if (attached) ctx.sessions.forgetUser(user.id);
    }
    return null;
  });

  /**
   * Whether the chain of referrers starting at `code` reaches `own` (this account's code) within a few
   * steps: naming someone this account referred, directly or through others, would close a ring of
   * accounts each earning a commission on the next one's purchases.
   */
  async function referredBy(tx: DbOrTx, code: string | null, own: string | null): Promise<boolean> {
    if (!own) return false;
    const seen = new Set<string>();
    for (let next = code; next && !seen.has(next) && seen.size < REFERRAL_CHAIN_CHECKED;) {
      if (next === own) return true;
      seen.add(next);
      const [up] = await tx.select({ referral: users.referral }).from(users).where(eq(users.referralCode, next)).limit(1);
      next = up?.referral ?? null;
    }
    return false;
  }

  route(endpoints.referral, async ({ session }) => {
    let code = session.user.referralCode;
    if (!code) {
      code = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x');
      await db
        .update(users)
        .set({ referralCode: code })
        .where(and(eq(users.id, session.user.id), isNull(users.referralCode)));
      const [row] = await db.select({ code: users.referralCode }).from(users).where(eq(users.id, session.user.id));
      code = row?.code ?? code;
      ctx.sessions.forgetUser(session.user.id);
    }
    const mine = and(eq(ledgerEntries.userId, session.user.id), eq(ledgerEntries.kind, 'commission'));
    const [[referred], [earned], recent] = await Promise.all([
      db.select({ n: count() }).from(users).where(eq(users.referral, code)),
      db
        .select({ sum: sql<string | null>`sum(${ledgerEntries.amountCents})` })
        .from(ledgerEntries)
        .where(mine),
      db.select().from(ledgerEntries).where(mine).orderBy(desc(ledgerEntries.seq)).limit(20),
    ]);
    return {
      code,
      link: `${ctx.config.publicUrl}/?r=${code}`,
      referredUsers: Number(referred?.n ?? 0),
      commissionPercent: ctx.config.AFFILIATE_COMMISSION_PERCENT,
      earnedCents: Number(earned?.sum ?? 0),
      commissions: recent.map((r) => ({ id: r.id, amountCents: r.amountCents, createdAt: r.createdAt.toISOString() })),
    };
  });
}

/** The giveaway: made (or its deadline kept) at start, shown, and entered once per account. */
function giveawayRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  void db
    .insert(giveaways)
    .values({ ...GIVEAWAY, deadline: new Date(ctx.config.GIVEAWAY_DEADLINE) })
    .onConflictDoUpdate({
      target: giveaways.slug,
      set: { deadline: new Date(ctx.config.GIVEAWAY_DEADLINE) },
      where: isNull(giveaways.drawnAt),
    })
    .catch((err: unknown) => ctx.log.error({ err }, 'giveaway setup failed'));

  route(endpoints.giveaway, async ({ request, params: { slug } }) => {
    const [giveaway] = await db.select().from(giveaways).where(eq(giveaways.slug, slug)).limit(1);
    if (!giveaway) throw new ApiError('NOT_FOUND');
    const [entries] = await db.select({ n: count() }).from(giveawayEntries).where(eq(giveawayEntries.slug, slug));
    const session = await optionalSession(ctx, request);
    const [mine] = session
      ? await db
          .select({ id: giveawayEntries.id })
          .from(giveawayEntries)
          .where(and(eq(giveawayEntries.slug, slug), eq(giveawayEntries.userId, session.user.id)))
          .limit(1)
      : [];
    const winners = giveaway.drawnAt
      ? (
          await db
            .select({ email: users.emailAddress })
            .from(giveawayEntries)
            .innerJoin(users, eq(users.id, giveawayEntries.userId))
            .where(and(eq(giveawayEntries.slug, slug), eq(giveawayEntries.winner, true)))
            .orderBy(asc(users.emailAddress))
        ).map((w) => maskEmail(w.email))
      : [];
    return {
      slug,
      title: giveaway.title,
      deadline: giveaway.deadline.toISOString(),
      winnersCount: giveaway.winnersCount,
      entries: Number(entries?.n ?? 0),
      entered: Boolean(mine),
      drawn: giveaway.drawnAt !== null,
      seed: giveaway.seed,
      winners,
    };
  });

  route(endpoints.giveawayEnter, async ({ session, params: { slug } }) => {
    const [giveaway] = await db.select().from(giveaways).where(eq(giveaways.slug, slug)).limit(1);
    if (!giveaway) throw new ApiError('NOT_FOUND');
    if (!session.user.emailVerifiedAt) throw new ApiError('EMAIL_ADDRESS_REQUIRED');
    if (giveaway.drawnAt || giveaway.deadline.getTime() <= Date.now())
      throw new ApiError('INVALID_STATE', undefined, 'This giveaway has closed.');
    const inserted = await db
      .insert(giveawayEntries)
      .values({ id: newId(), slug, userId: session.user.id })
      .onConflictDoNothing()
      .returning({ id: giveawayEntries.id });
    if (!inserted[0]) throw new ApiError('INVALID_STATE', undefined, 'You have already entered this giveaway. Good luck!');
    return null;
  });
}

/** The operator's draw (after the deadline): records the seed and marks the winners. */
export async function drawGiveaway(ctx: Given<'database'>, slug: string, seed = randomBytes(16).toString('hex')) {
  const { db } = ctx.database;
  return db.transaction(async (tx) => {
    const [giveaway] = await tx.select().from(giveaways).where(eq(giveaways.slug, slug)).for('update');
    if (!giveaway) throw new ApiError('NOT_FOUND');
    if (giveaway.drawnAt) throw new ApiError('INVALID_STATE', undefined, 'This giveaway was already drawn.');
    if (giveaway.deadline.getTime() > Date.now()) throw new ApiError('INVALID_STATE', undefined, 'The giveaway is still open.');
    const entries = await tx.select({ id: giveawayEntries.id }).from(giveawayEntries).where(eq(giveawayEntries.slug, slug));
    const winners = drawWinners(
      seed,
      entries.map((e) => e.id),
      giveaway.winnersCount,
    );
    for (const id of winners) await tx.update(giveawayEntries).set({ winner: true }).where(eq(giveawayEntries.id, id));
    await tx.update(giveaways).set({ seed, drawnAt: new Date() }).where(eq(giveaways.slug, slug));
    return { seed, entries: entries.length, winners: winners.length };
  });
}
