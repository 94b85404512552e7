import { endpoints, twoFactorToken } from '@spawnpoint/contracts';
import { recordEvent } from '../auth/events.ts';
import { acceptSecondFactor } from '../auth/two-factor.ts';
import { eq } from 'drizzle-orm';
import { consumeEmailToken, emailTokenOwner, issueEmailToken, revokeMailedLinks } from '../auth/email-tokens.ts';
import { hashPassword, refuseCommonPassword, verifyPassword } from '../auth/passwords.ts';
import { newId } from '../auth/tokens.ts';
import { clearSessionCookie, optionalSession, setSessionCookie, type Given } from '../context.ts';
import { users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { passwordResetMail, verificationMail } from '../mail/templates.ts';
import { presentUser } from './present.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'background' | 'config' | 'database' | 'limit' | 'mailer' | 'sessions'>;

const INVALID_LINK = 'This link is invalid or has expired. Please request a new one.';
const ALREADY_VERIFIED = 'Your email address is already verified.';
const TWOFACTOR_PROMPT = 'Enter the six-digit code from your authenticator app, or one of your recovery codes.';

/** Signing up and in, verifying the address, and a forgotten password. */
export function authRoutes(route: Route, ctx: Services): void {
  signInRoutes(route, ctx);
  verificationRoutes(route, ctx);
  passwordRecoveryRoutes(route, ctx);
}

/** Mails a new verification link (an earlier one stays valid until it expires or is used). */
async function sendVerification(ctx: Services, userId: string, emailAddress: string): Promise<void> {
  const token = await issueEmailToken(ctx.database.db, userId, 'verify_email');
  const mail = verificationMail(ctx.config.publicUrl, token);
  await ctx.mailer.send({ to: emailAddress, ...mail });
}

/** Sign-up, sign-in and sign-out. */
function signInRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(
    endpoints.register,
    async ({ request, reply, body }) => {
      refuseCommonPassword(body.password, 'password');
      const passwordHash = await hashPassword(body.password);
      const id = newId();
      // Only a code that belongs to someone is kept (the affiliate programme credits its owner).
      const [referrer] = body.referral
        ? await db.select({ id: users.id }).from(users).where(eq(users.referralCode, body.referral)).limit(1)
        : [];
      // The unique index decides races between two registrations of the same address.
      const inserted = await db
        .insert(users)
        .values({ id, emailAddress: body.emailAddress, passwordHash, referral: referrer ? (body.referral ?? null) : null })
        .onConflictDoNothing()
        .returning();
      const user = inserted[0];
      if (!user) throw new ApiError('EMAIL_ALREADY_REGISTERED');
      const token = await ctx.sessions.create(user.id, { userAgent: request.headers['user-agent'], ip: request.ip });
      setSessionCookie(ctx, reply, token);
      ctx.background(() => sendVerification(ctx, user.id, user.emailAddress));
      return presentUser(user, ctx.config.appSecret);
    },
    { limit: 'registerPerIp' },
  );

  route(
    endpoints.login,
    async ({ request, reply, body }) => {
      await ctx.limit('loginPerAccountAndIp', request, `${body.emailAddress}|${request.ip}`);
      const [user] = await db.select().from(users).where(eq(users.emailAddress, body.emailAddress)).limit(1);
      // Password first, always, so the answer never reveals whether the address has an account.
      const valid = await verifyPassword(user?.passwordHash ?? null, body.password);
      if (!user || !valid) {
        if (user) await recordEvent(db, user.id, 'sign_in_failed', request);
        throw new ApiError('INVALID_CREDENTIALS');
      }
      if (user.lockedAt) throw new ApiError('ACCOUNT_LOCKED');
      if (user.twoFactorEnabledAt) {
        // Only someone who knows the password learns that the account has two-factor.
        if (!body.twoFactorToken) {
          throw new ApiError('INVALID_TWOFACTOR', { twoFactorToken: TWOFACTOR_PROMPT }, TWOFACTOR_PROMPT);
        }
        await ctx.limit('twoFactorPerAccount', request, user.id);
        const token = twoFactorToken.safeParse(body.twoFactorToken);
        const kind = token.success ? await acceptSecondFactor(db, ctx.config.appSecret, user, token.data) : null;
        if (!kind) {
          await recordEvent(db, user.id, 'sign_in_failed', request);
          throw new ApiError('INVALID_TWOFACTOR');
        }
        if (kind === 'recovery') await recordEvent(db, user.id, 'recovery_code_used', request);
      }
      await recordEvent(db, user.id, 'sign_in', request);
      const previous = await optionalSession(ctx, request);
      if (previous) await ctx.sessions.destroy(previous.sessionId);
      const token = await ctx.sessions.create(user.id, { userAgent: request.headers['user-agent'], ip: request.ip });
      setSessionCookie(ctx, reply, token);
      return presentUser(user, ctx.config.appSecret);
    },
    { limit: 'loginPerIp' },
  );

  route(endpoints.logout, async ({ request, reply }) => {
    const session = await optionalSession(ctx, request);
    if (session) await ctx.sessions.destroy(session.sessionId);
    clearSessionCookie(ctx, reply);
    return null;
  });
}

/** The mailed verification link, and another one sent. */
function verificationRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(
    endpoints.verifyEmail,
    async ({ body }) => {
      const userId = await consumeEmailToken(db, body.token, 'verify_email');
      if (!userId) {
        // A link opened again (a second click, a mail client's preview) of an account that is verified is
        // no failure of the user's: say so, instead of sending them to request a link they do not need.
        const owner = await emailTokenOwner(db, body.token, 'verify_email');
        const [user] = owner ? await db.select({ verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, owner)).limit(1) : [];
        if (user?.verifiedAt) throw new ApiError('INVALID_STATE', undefined, ALREADY_VERIFIED);
        throw new ApiError('INVALID_INPUT', { token: INVALID_LINK }, INVALID_LINK);
      }
      await db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
      ctx.sessions.forgetUser(userId);
      return null;
    },
    { limit: 'verifyPerIp' },
  );

  route(endpoints.resendVerification, async ({ request, session }) => {
    await ctx.limit('resendVerificationPerAccount', request, session.user.id);
    if (session.user.emailVerifiedAt) throw new ApiError('INVALID_STATE', undefined, ALREADY_VERIFIED);
    ctx.background(() => sendVerification(ctx, session.user.id, session.user.emailAddress));
    return null;
  });
}

/** A forgotten password: the mailed link, and the new password set with it. */
function passwordRecoveryRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(
    endpoints.passwordRecovery,
    async ({ request, body }) => {
      await ctx.limit('recoveryPerAccount', request, body.emailAddress);
      // Same answer and same timing whether or not the address has an account: the work happens later.
      ctx.background(async () => {
        const [user] = await db.select().from(users).where(eq(users.emailAddress, body.emailAddress)).limit(1);
        if (!user || user.lockedAt) return;
        const token = await issueEmailToken(db, user.id, 'password_reset');
        await ctx.mailer.send({ to: user.emailAddress, ...passwordResetMail(ctx.config.publicUrl, token) });
      });
      return null;
    },
    { limit: 'recoveryPerIp' },
  );

  route(
    endpoints.passwordReset,
    async ({ request, body }) => {
      refuseCommonPassword(body.password, 'password');
      const passwordHash = await hashPassword(body.password);
      const userId = await db.transaction(async (tx) => {
        const id = await consumeEmailToken(tx, body.token, 'password_reset');
        if (!id) return null;
        await revokeMailedLinks(tx, id);
        // Following the emailed link proves the mailbox, so the address counts as verified too.
        const [row] = await tx.select().from(users).where(eq(users.id, id)).limit(1);
        await tx
          .update(users)
          .set({ passwordHash, emailVerifiedAt: row?.emailVerifiedAt ?? new Date() })
          .where(eq(users.id, id));
        return id;
      });
      if (!userId) throw new ApiError('INVALID_INPUT', { token: INVALID_LINK }, INVALID_LINK);
      await recordEvent(db, userId, 'password_reset', request);
      await ctx.sessions.destroyAllForUser(userId);
      ctx.sessions.forgetUser(userId);
      return null;
    },
    { limit: 'recoveryPerIp' },
  );
}
