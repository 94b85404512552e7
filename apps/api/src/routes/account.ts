import {
  changeEmailRequest,
  changePasswordRequest,
  SAME_PASSWORD_MESSAGE,
  confirmEmailRequest,
  deleteAccountRequest,
  describeDevice,
  recoveryCodesRequest,
  twoFactorDisableRequest,
  twoFactorEnableRequest,
  type SessionInfoData,
} from '@spawnpoint/contracts';
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import { z } from 'zod';
import { recordEvent } from '../auth/events.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { newId, randomToken, sha256 } from '../auth/tokens.ts';
import { acceptSecondFactor, acceptTotp, encryptSecret, issueRecoveryCodes, newTotp } from '../auth/two-factor.ts';
import { clearSessionCookie, requireSession, type AppContext } from '../context.ts';
import { accountEvents, emailChanges, recoveryCodes, servers, sessions, twoFactor, users } from '../db/schema.ts';
import { ApiError, ok, parse } from '../http/errors.ts';
import { emailChangeMail } from '../mail/templates.ts';

const sessionIdParams = z.object({
  sessionId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});
const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60_000;

export function accountRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { db } = ctx.database;

  async function checkPassword(request: Parameters<typeof requireSession>[1], userId: string, hash: string, password: string) {
    await ctx.limit('passwordCheckPerAccount', request, userId);
    if (!(await verifyPassword(hash, password)))
      throw new ApiError('INVALID_CREDENTIALS', { currentPassword: 'The password is not correct.' }, 'The password is not correct.');
  }

  // --- two-factor ---

  app.get('/v1/user/twofactor/enable', async (request) => {
    const session = await requireSession(ctx, request);
    if (session.user.twoFactorEnabledAt) throw new ApiError('INVALID_STATE', undefined, 'Two-factor authentication is already on.');
    const totp = newTotp(session.user.emailAddress);
    const secret = totp.secret.base32;
    // A new setup replaces an unfinished one; nothing is on until a code confirms it.
    await db
      .insert(twoFactor)
      .values({ userId: session.user.id, secretEncrypted: encryptSecret(ctx.config.appSecret, secret) })
      .onConflictDoUpdate({
        target: twoFactor.userId,
        set: { secretEncrypted: encryptSecret(ctx.config.appSecret, secret), lastStep: 0, enabledAt: null },
      });
    const qr = await QRCode.toDataURL(totp.toString(), { margin: 1, width: 220 });
    return ok({ qr, secret });
  });

  app.post('/v1/user/twofactor/enable', async (request) => {
    const session = await requireSession(ctx, request);
    if (session.user.twoFactorEnabledAt) throw new ApiError('INVALID_STATE', undefined, 'Two-factor authentication is already on.');
    const body = parse(twoFactorEnableRequest, request.body);
    await ctx.limit('twoFactorPerAccount', request, session.user.id);
    if (!(await acceptTotp(db, ctx.config.appSecret, session.user.id, session.user.emailAddress, body.token)))
      throw new ApiError('INVALID_TWOFACTOR');
    const now = new Date();
    await db.update(twoFactor).set({ enabledAt: now }).where(eq(twoFactor.userId, session.user.id));
    await db.update(users).set({ twoFactorEnabledAt: now }).where(eq(users.id, session.user.id));
    const codes = await issueRecoveryCodes(db, session.user.id);
    ctx.sessions.forgetUser(session.user.id);
    if (body.endOtherSessions) await ctx.sessions.destroyAllForUser(session.user.id, session.sessionId);
    await recordEvent(db, session.user.id, 'twofactor_enabled', request);
    return ok({ recoveryCodes: codes });
  });

  app.post('/v1/user/twofactor/disable', async (request) => {
    const session = await requireSession(ctx, request);
    if (!session.user.twoFactorEnabledAt) throw new ApiError('INVALID_STATE', undefined, 'Two-factor authentication is already off.');
    const body = parse(twoFactorDisableRequest, request.body);
    await ctx.limit('twoFactorPerAccount', request, session.user.id);
    if (!(await acceptSecondFactor(db, ctx.config.appSecret, session.user, body.token))) throw new ApiError('INVALID_TWOFACTOR');
    await db.delete(twoFactor).where(eq(twoFactor.userId, session.user.id));
    await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, session.user.id));
    await db.update(users).set({ twoFactorEnabledAt: null }).where(eq(users.id, session.user.id));
    ctx.sessions.forgetUser(session.user.id);
    await recordEvent(db, session.user.id, 'twofactor_disabled', request);
    return ok(null);
  });

  /** Recovery codes are stored hashed, so "seeing them again" means getting a fresh set. Needs two-factor. */
  app.post('/v1/user/twofactor/recovery-codes', async (request) => {
    const session = await requireSession(ctx, request);
    if (!session.user.twoFactorEnabledAt) throw new ApiError('TWOFACTOR_REQUIRED');
    const body = parse(recoveryCodesRequest, request.body);
    await ctx.limit('twoFactorPerAccount', request, session.user.id);
    if (!(await acceptSecondFactor(db, ctx.config.appSecret, session.user, body.token))) throw new ApiError('INVALID_TWOFACTOR');
    const codes = await issueRecoveryCodes(db, session.user.id);
    await recordEvent(db, session.user.id, 'recovery_codes_regenerated', request);
    return ok({ recoveryCodes: codes });
  });

  // --- sessions ---

  app.get('/v1/user/sessions', async (request) => {
    const session = await requireSession(ctx, request);
    const rows = await db
      .select()
      .from(sessions)
      .where(and(eq(sessions.userId, session.user.id), gt(sessions.expiresAt, new Date())))
      .orderBy(desc(sessions.lastSeenAt));
    const result: SessionInfoData[] = rows.map((row) => ({
      sessionId: row.id,
      device: describeDevice(row.userAgent),
      ip: row.ip,
      createdAt: row.createdAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
      current: row.id === session.sessionId,
    }));
    return ok(result);
  });

  app.delete('/v1/user/sessions/:sessionId', async (request) => {
    const session = await requireSession(ctx, request);
    const { sessionId } = parse(sessionIdParams, request.params);
    const [row] = await db
      .select({ id: sessions.id })
      .from(sessions)
      .where(and(eq(sessions.id, sessionId), eq(sessions.userId, session.user.id)))
      .limit(1);
    if (!row) throw new ApiError('NOT_FOUND');
    await ctx.sessions.destroy(row.id);
    await recordEvent(db, session.user.id, 'session_revoked', request);
    return ok(null);
  });

  app.post('/v1/user/sessions/revoke-others', async (request) => {
    const session = await requireSession(ctx, request);
    await ctx.sessions.destroyAllForUser(session.user.id, session.sessionId);
    await recordEvent(db, session.user.id, 'session_revoked', request);
    return ok(null);
  });

  // --- password, email, deletion ---

  app.post('/v1/user/password', async (request) => {
    const session = await requireSession(ctx, request);
    const body = parse(changePasswordRequest, request.body);
    await checkPassword(request, session.user.id, session.user.passwordHash, body.currentPassword);
    // Checked after the current password is known to be right, so the message is true when it is shown.
    if (body.newPassword === body.currentPassword) throw new ApiError('INVALID_INPUT', { newPassword: SAME_PASSWORD_MESSAGE });
    await db
      .update(users)
      .set({ passwordHash: await hashPassword(body.newPassword) })
      .where(eq(users.id, session.user.id));
    ctx.sessions.forgetUser(session.user.id);
    if (body.endOtherSessions) await ctx.sessions.destroyAllForUser(session.user.id, session.sessionId);
    await recordEvent(db, session.user.id, 'password_changed', request);
    return ok(null);
  });

  app.post('/v1/user/email', async (request) => {
    const session = await requireSession(ctx, request);
    const body = parse(changeEmailRequest, request.body);
    await checkPassword(request, session.user.id, session.user.passwordHash, body.password);
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
    return ok(null);
  });

  app.post('/v1/user/email/confirm', async (request) => {
    const body = parse(confirmEmailRequest, request.body);
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
        const updated = await tx
          .update(users)
          .set({ emailAddress: change.newEmailAddress, emailVerifiedAt: new Date() })
          .where(eq(users.id, change.userId))
          .returning({ id: users.id });
        return updated[0] ? change.userId : null;
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
    ctx.sessions.forgetUser(result);
    await recordEvent(db, result, 'email_changed', request);
    return ok(null);
  });

  app.post('/v1/user/delete', async (request, reply) => {
    const session = await requireSession(ctx, request);
    const body = parse(deleteAccountRequest, request.body);
    await checkPassword(request, session.user.id, session.user.passwordHash, body.password);
    // Subscriptions arrive with billing; until then no account has one (SUBSCRIPTION_ACTIVE can't occur yet).
    const owned = await db.select().from(servers).where(eq(servers.ownerId, session.user.id));
    for (const server of owned) {
      if (!ctx.game.nodes.isConnected(server.nodeId))
        throw new ApiError(
          'NODE_UNAVAILABLE',
          undefined,
          'The machine that runs one of your servers cannot be reached right now, so its files cannot be removed. Please try again in a minute.',
        );
      await ctx.game.nodes.remove(server.nodeId, server.id);
      ctx.game.hub.forget(server.id);
    }
    await ctx.sessions.destroyAllForUser(session.user.id);
    await db.delete(users).where(eq(users.id, session.user.id));
    ctx.game.directory.invalidate(session.user.id);
    clearSessionCookie(ctx, reply);
    return ok(null);
  });

  app.get('/v1/user/activity', async (request) => {
    const session = await requireSession(ctx, request);
    const rows = await db
      .select()
      .from(accountEvents)
      .where(eq(accountEvents.userId, session.user.id))
      .orderBy(desc(accountEvents.createdAt))
      .limit(50);
    return ok(
      rows.map((row) => ({ type: row.type, ip: row.ip, device: describeDevice(row.userAgent), createdAt: row.createdAt.toISOString() })),
    );
  });
}
