import { describeDevice, endpoints, SAME_PASSWORD_MESSAGE } from '@spawnpoint/contracts';
import type { FastifyRequest } from 'fastify';
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import { revokeMailedLinks } from '../auth/email-tokens.ts';
import { recordEvent } from '../auth/events.ts';
import { hashPassword, refuseCommonPassword, verifyPassword } from '../auth/passwords.ts';
import { newId, randomToken, sha256 } from '../auth/tokens.ts';
import { clearSessionCookie, type Given } from '../context.ts';
import { accountEvents, emailChanges, serverSchedules, servers, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { emailChangedMail, emailChangeMail } from '../mail/templates.ts';
import { recordActivity } from '../servers/activity.ts';
import { ServerRemover, type RemoverServices } from '../servers/server-remover.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<
  'background' | 'config' | 'database' | 'limit' | 'mailer' | 'sessions',
  'directory' | 'freeTier' | RemoverServices,
  'subscriptions'
>;

const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60_000;

/** The account itself: password, email address (confirmed from the new one), deletion, activity. */
export function accountRoutes(route: Route, ctx: Services): void {
  credentialRoutes(route, ctx);
  accountRecordRoutes(route, ctx);
}

/** INVALID_CREDENTIALS on the current-password field unless it is the account's; attempts are limited. */
async function checkPassword(ctx: Services, request: FastifyRequest, userId: string, hash: string, password: string) {
  await ctx.limit('passwordCheckPerAccount', request, userId);
  if (!(await verifyPassword(hash, password)))
    throw new ApiError('INVALID_CREDENTIALS', { currentPassword: 'The password is not correct.' }, 'The password is not correct.');
}

/** The password and the email address (confirmed from the new address). */
function credentialRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(endpoints.passwordChange, async ({ request, session, body }) => {
    await checkPassword(ctx, request, session.user.id, session.user.passwordHash, body.currentPassword);
    // Checked after the current password is known to be right, so the message is true when it is shown.
    if (body.newPassword === body.currentPassword) throw new ApiError('INVALID_INPUT', { newPassword: SAME_PASSWORD_MESSAGE });
    refuseCommonPassword(body.newPassword, 'newPassword');
    const passwordHash = await hashPassword(body.newPassword);
    await db.transaction(async (tx) => {
      await tx.update(users).set({ passwordHash }).where(eq(users.id, session.user.id));
      await revokeMailedLinks(tx, session.user.id);
    });
    ctx.sessions.forgetUser(session.user.id);
    if (body.endOtherSessions) await ctx.sessions.destroyAllForUser(session.user.id, session.sessionId);
    await recordEvent(db, session.user.id, 'password_changed', request);
    return null;
  });

  route(endpoints.emailChange, async ({ request, session, body }) => {
    await checkPassword(ctx, request, session.user.id, session.user.passwordHash, body.password);
    await ctx.limit('emailChangePerAccount', request, session.user.id);
    if (body.newEmailAddress === session.user.emailAddress)
      throw new ApiError('INVALID_INPUT', { newEmailAddress: 'This is already your email address.' });
    // Same answer whether or not the new address is taken: only its owner learns, by mail.
    const [taken] = await db.select({ id: users.id }).from(users).where(eq(users.emailAddress, body.newEmailAddress)).limit(1);
    const token = randomToken();
    if (!taken) {
      await db.insert(emailChanges).values({
        id: newId(),
        userId: session.user.id,
        newEmailAddress: body.newEmailAddress,
        tokenHash: sha256(token),
        expiresAt: new Date(Date.now() + EMAIL_CHANGE_TTL_MS),
      });
    }
    ctx.background(() => ctx.mailer.send({ to: body.newEmailAddress, ...emailChangeMail(ctx.config.publicUrl, taken ? null : token) }));
    await recordEvent(db, session.user.id, 'email_change_requested', request);
    return null;
  });

  route(endpoints.emailChangeConfirm, async ({ request, body }) => {
    const invalid = 'This link is invalid or has expired. Please request the change again.';
    const taken = 'This email address was registered by another account since you asked to change to it.';
    const result = await db
      .transaction(async (tx) => {
        const [change] = await tx
          .update(emailChanges)
          .set({ usedAt: new Date() })
          .where(and(eq(emailChanges.tokenHash, sha256(body.token)), isNull(emailChanges.usedAt), gt(emailChanges.expiresAt, new Date())))
          .returning();
        if (!change) return null;
        // Whoever holds this link reads that mailbox, so saying the address is taken reveals nothing new.
        const [other] = await tx.select({ id: users.id }).from(users).where(eq(users.emailAddress, change.newEmailAddress)).limit(1);
        if (other && other.id !== change.userId) return 'taken' as const;
        const [before] = await tx.select({ emailAddress: users.emailAddress }).from(users).where(eq(users.id, change.userId)).limit(1);
        const updated = await tx
          .update(users)
          .set({ emailAddress: change.newEmailAddress, emailVerifiedAt: new Date() })
          .where(eq(users.id, change.userId))
          .returning({ id: users.id });
        return updated[0] ? { userId: change.userId, left: before?.emailAddress ?? null, to: change.newEmailAddress } : null;
      })
      .catch((err: unknown) => {
        // Registered in the same instant (the unique index had the last word).
        if (
          (err as { code?: string; cause?: { code?: string } }).code === '23505' ||
          (err as { cause?: { code?: string } }).cause?.code === '23505'
        )
          return 'taken' as const;
        throw err;
      });
    if (result === 'taken') throw new ApiError('EMAIL_ALREADY_REGISTERED', undefined, taken);
    if (!result) throw new ApiError('INVALID_INPUT', { token: invalid }, invalid);
    ctx.sessions.forgetUser(result.userId);
    // Told at the address the account left, once the change is written.
    const { left, to } = result;
    if (left) ctx.background(() => ctx.mailer.send({ to: left, ...emailChangedMail(ctx.config.publicUrl, to) }));
    await recordEvent(db, result.userId, 'email_changed', request);
    return null;
  });
}

/** Deleting the account, and its activity. */
function accountRecordRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(
    endpoints.accountDelete,
    async ({ request, reply, session, body }) => {
      await checkPassword(ctx, request, session.user.id, session.user.passwordHash, body.password);
      await ctx.billing.subscriptions.refuseIfRenewing({ userId: session.user.id });
      const owned = await db.select().from(servers).where(eq(servers.ownerId, session.user.id));
      const remover = new ServerRemover(ctx.game);
      await remover.removeFiles(
        owned.map((s) => s.id),
        'one of your servers',
      );
      await ctx.sessions.destroyAllForUser(session.user.id);
      await db.transaction(async (tx) => {
        // Schedules they made on others' servers would run on without anyone behind them: paused, as for a
        // member removed (routes/members.ts), and logged on each server.
        const paused = await tx
          .update(serverSchedules)
          .set({ enabled: false, nextRunAt: null })
          .where(and(eq(serverSchedules.createdBy, session.user.id), eq(serverSchedules.enabled, true)))
          .returning({ serverId: serverSchedules.serverId, name: serverSchedules.name });
        for (const schedule of paused.filter((p) => !owned.some((s) => s.id === p.serverId)))
          await recordActivity(tx, {
            serverId: schedule.serverId,
            actorId: null,
            ip: null,
            action: 'schedule.update',
            target: `${schedule.name}: paused (made by ${session.user.emailAddress}, whose account was deleted)`,
          });
        await tx.delete(users).where(eq(users.id, session.user.id));
      });
      remover.forget(owned.map((s) => s.id));
      ctx.game.freeTier.forgetAccount(session.user.id);
      ctx.game.directory.invalidate(session.user.id);
      clearSessionCookie(ctx, reply);
      return null;
    },
    { gamePlane: true },
  );

  route(endpoints.activity, async ({ session }) => {
    const rows = await db
      .select()
      .from(accountEvents)
      .where(eq(accountEvents.userId, session.user.id))
      .orderBy(desc(accountEvents.createdAt))
      .limit(50);
    return rows.map((row) => ({
      type: row.type,
      ip: row.ip,
      device: describeDevice(row.userAgent),
      createdAt: row.createdAt.toISOString(),
    }));
  });
}
