import { endpoints } from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import QRCode from 'qrcode';
import { recordEvent } from '../auth/events.ts';
import { acceptSecondFactor, acceptTotp, encryptSecret, issueRecoveryCodes, newTotp } from '../auth/two-factor.ts';
import type { Given } from '../context.ts';
import { recoveryCodes, twoFactor, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config' | 'database' | 'limit' | 'sessions'>;

/** Two-factor authentication: setup with a QR code, turning it on and off, fresh recovery codes. */
export function twoFactorRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(endpoints.twoFactorSetup, async ({ session }) => {
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
    return { qr, secret };
  });

  route(endpoints.twoFactorEnable, async ({ request, session, body }) => {
    if (session.user.twoFactorEnabledAt) throw new ApiError('INVALID_STATE', undefined, 'Two-factor authentication is already on.');
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
    return { recoveryCodes: codes };
  });

  route(endpoints.twoFactorDisable, async ({ request, session, body }) => {
    if (!session.user.twoFactorEnabledAt) throw new ApiError('INVALID_STATE', undefined, 'Two-factor authentication is already off.');
    await ctx.limit('twoFactorPerAccount', request, session.user.id);
    if (!(await acceptSecondFactor(db, ctx.config.appSecret, session.user, body.token))) throw new ApiError('INVALID_TWOFACTOR');
    await db.delete(twoFactor).where(eq(twoFactor.userId, session.user.id));
    await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, session.user.id));
    await db.update(users).set({ twoFactorEnabledAt: null }).where(eq(users.id, session.user.id));
    ctx.sessions.forgetUser(session.user.id);
    await recordEvent(db, session.user.id, 'twofactor_disabled', request);
    return null;
  });

  /** Recovery codes are stored hashed, so "seeing them again" means getting a fresh set. Needs two-factor. */
  route(endpoints.recoveryCodes, async ({ request, session, body }) => {
    if (!session.user.twoFactorEnabledAt) throw new ApiError('TWOFACTOR_REQUIRED');
    await ctx.limit('twoFactorPerAccount', request, session.user.id);
    if (!(await acceptSecondFactor(db, ctx.config.appSecret, session.user, body.token))) throw new ApiError('INVALID_TWOFACTOR');
    const codes = await issueRecoveryCodes(db, session.user.id);
    await recordEvent(db, session.user.id, 'recovery_codes_regenerated', request);
    return { recoveryCodes: codes };
  });
}
