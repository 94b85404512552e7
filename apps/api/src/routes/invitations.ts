import {
  canGrant,
  endpoints,
  INVITATION_TTL_MS,
  memberMessages,
  PENDING_INVITATIONS_MAX,
  SERVER_MEMBERS_MAX,
  roleHas,
  type ServerInvitation,
  type ServerRole,
} from '@spawnpoint/contracts';
import { and, count, eq, gt, isNull, lte } from 'drizzle-orm';
import { newId, randomToken, sha256 } from '../auth/tokens.ts';
import type { Given } from '../context.ts';
import type { ServerRow } from '../db/rows.ts';
import { serverInvitations, serverMembers, servers, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { invitationMail } from '../mail/templates.ts';
import { recordActivity } from '../servers/activity.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config' | 'database' | 'limit' | 'mailer' | 'sessions', 'directory'>;

type InvitationRow = typeof serverInvitations.$inferSelect;

/**
 * Whether a member with `role` (null: no longer a member) may still stand behind an invitation for
 * `invited`: an invitation is only as good as its sender's authority now, so a removed or demoted
 * administrator cannot come back in through an invitation sent beforehand to a second mailbox.
 */
export const mayStillInvite = (role: ServerRole | null, invited: ServerRole) =>
  role !== null && roleHas(role, 'members.manage') && canGrant(role, invited);

export function presentInvitation(row: InvitationRow): ServerInvitation {
  return {
    invitationId: row.id,
    emailAddress: row.emailAddress,
    role: row.role,
    sentAt: row.sentAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}

/** Mails the invitation link, saying whether the address already has an account (sign in, or sign up). */
async function sendInvitation(ctx: Services, server: ServerRow, inviter: string, row: InvitationRow, token: string): Promise<void> {
  const { db } = ctx.database;
  const [account] = await db.select({ id: users.id }).from(users).where(eq(users.emailAddress, row.emailAddress)).limit(1);
  await ctx.mailer.send({
    to: row.emailAddress,
    ...invitationMail(ctx.config.publicUrl, token, { serverName: server.name, inviter, role: row.role, hasAccount: Boolean(account) }),
  });
}

/**
 * Invitations to a server (docs/guide.md, Members, roles and invitations): sending, resending and revoking
 * need `members.manage` (checked by the router), and nobody invites to a role they could not give; the
 * link's token is the only key to preview and accept one.
 */
export function invitationRoutes(route: Route, ctx: Services): void {
  invitationCreateRoutes(route, ctx);
  invitationChangeRoutes(route, ctx);
  invitationPreviewRoutes(route, ctx);
  invitationAcceptRoutes(route, ctx);
}

/** An invitation sent: checked against the roles the sender may give and the server's limits. */
function invitationCreateRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  // Every change below is logged in the transaction that makes it, with the address it concerns.
  route(endpoints.invitationCreate, async ({ request, session, server, access, body, recordActivity: record }) => {
    if (!canGrant(access.role, body.role)) throw new ApiError('NO_PERMISSION', undefined, memberMessages.grant);
    if (body.emailAddress === session.user.emailAddress) throw new ApiError('INVALID_INPUT', undefined, memberMessages.inviteSelf);
    const [account] = await db.select({ id: users.id }).from(users).where(eq(users.emailAddress, body.emailAddress)).limit(1);
    if (account?.id === server.ownerId) throw new ApiError('INVALID_INPUT', undefined, memberMessages.inviteOwner);
    if (account) {
      const [member] = await db
        .select({ role: serverMembers.role })
        .from(serverMembers)
        .where(and(eq(serverMembers.serverId, server.id), eq(serverMembers.userId, account.id)))
        .limit(1);
      if (member) throw new ApiError('INVALID_STATE', undefined, memberMessages.alreadyMember);
    }
    const now = new Date();
    const token = randomToken();
    // Checked and written under the server's row lock: two invitations sent at once (a double click, two
    // tabs) cannot both pass the checks, so an address has one pending invitation and the limits hold.
    const row = await db.transaction(async (tx) => {
      await tx.select({ id: servers.id }).from(servers).where(eq(servers.id, server.id)).for('no key update');
      // Expired invitations of the server are dead weight: they go before counting.
      await tx
        .delete(serverInvitations)
        .where(and(eq(serverInvitations.serverId, server.id), isNull(serverInvitations.acceptedAt), lte(serverInvitations.expiresAt, now)));
      const pending = await tx
        .select({ emailAddress: serverInvitations.emailAddress })
        .from(serverInvitations)
        .where(and(eq(serverInvitations.serverId, server.id), isNull(serverInvitations.acceptedAt)));
      if (pending.some((p) => p.emailAddress === body.emailAddress))
        throw new ApiError('INVALID_STATE', undefined, memberMessages.alreadyInvited);
      if (pending.length >= PENDING_INVITATIONS_MAX) throw new ApiError('INVALID_STATE', undefined, memberMessages.tooManyInvitations);
      const [{ members = 0 } = {}] = await tx.select({ members: count() }).from(serverMembers).where(eq(serverMembers.serverId, server.id));
      if (members + pending.length >= SERVER_MEMBERS_MAX) throw new ApiError('INVALID_STATE', undefined, memberMessages.tooManyMembers);
      // Counted once the request is known to send a mail: refusals above do not use the server's budget.
      await ctx.limit('invitationsPerServer', request, server.id);
      const [made] = await tx
        .insert(serverInvitations)
        .values({
          id: newId(),
          serverId: server.id,
          emailAddress: body.emailAddress,
          role: body.role,
          tokenHash: sha256(token),
          invitedBy: session.user.id,
          sentAt: now,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        })
        .returning();
      if (!made) throw new ApiError('INTERNAL_ERROR');
      await record(tx, { action: 'invitation.create', target: `${made.emailAddress} as ${made.role}` });
      return made;
    });
    await sendInvitation(ctx, server, session.user.emailAddress, row, token);
    return presentInvitation(row);
  });
}

/** An invitation sent again (a new link, the old one dead) or revoked. */
function invitationChangeRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  route(endpoints.invitationResend, async ({ request, session, server, params, recordActivity: record }) => {
    await ctx.limit('invitationsPerServer', request, server.id);
    const token = randomToken();
    const now = new Date();
    // A new token replaces the old one, so only the newest mail's link works.
    const row = await db.transaction(async (tx) => {
      const [updated] = await tx
        .update(serverInvitations)
        // Whoever resends stands behind it from now on (see `mayStillInvite`).
        .set({ tokenHash: sha256(token), sentAt: now, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS), invitedBy: session.user.id })
        .where(
          and(
            eq(serverInvitations.id, params.invitationId),
            eq(serverInvitations.serverId, server.id),
            isNull(serverInvitations.acceptedAt),
          ),
        )
        .returning();
      if (!updated) throw new ApiError('NOT_FOUND');
      await record(tx, { action: 'invitation.resend', target: updated.emailAddress });
      return updated;
    });
    await sendInvitation(ctx, server, session.user.emailAddress, row, token);
    return presentInvitation(row);
  });

  route(endpoints.invitationRevoke, async ({ server, params, recordActivity: record }) => {
    await db.transaction(async (tx) => {
      const [deleted] = await tx
        .delete(serverInvitations)
        .where(
          and(
            eq(serverInvitations.id, params.invitationId),
            eq(serverInvitations.serverId, server.id),
            isNull(serverInvitations.acceptedAt),
          ),
        )
        .returning({ emailAddress: serverInvitations.emailAddress });
      if (!deleted) throw new ApiError('NOT_FOUND');
      await record(tx, { action: 'invitation.revoke', target: deleted.emailAddress });
    });
    return null;
  });
}

/** What an invitation link offers, before signing up or in. */
function invitationPreviewRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  // The link's token is its only key: counted per address like accepts, and it names only what its mail did.
  route(
    endpoints.invitationPreview,
    async ({ body }) => {
      const [row] = await db
        .select({
          serverName: servers.name,
          role: serverInvitations.role,
          emailAddress: serverInvitations.emailAddress,
          invitedBy: users.emailAddress,
          acceptedAt: serverInvitations.acceptedAt,
          expiresAt: serverInvitations.expiresAt,
        })
        .from(serverInvitations)
        .innerJoin(servers, eq(servers.id, serverInvitations.serverId))
        .leftJoin(users, eq(users.id, serverInvitations.invitedBy))
        .where(eq(serverInvitations.tokenHash, sha256(body.token)))
        .limit(1);
      if (!row) throw new ApiError('INVALID_INPUT', undefined, memberMessages.invalidToken);
      if (row.acceptedAt) throw new ApiError('INVALID_STATE', undefined, memberMessages.usedToken);
      if (row.expiresAt <= new Date()) throw new ApiError('INVALID_STATE', undefined, memberMessages.expiredToken);
      return { serverName: row.serverName, role: row.role, emailAddress: row.emailAddress, invitedBy: row.invitedBy };
    },
    { limit: 'invitationAcceptPerIp' },
  );
}

/** Accepting an invitation by its link's token: the address must be the account's, the sender still entitled. */
function invitationAcceptRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const { directory } = ctx.game;
  route(
    endpoints.invitationAccept,
    async ({ request, session, body }) => {
      const user = session.user;
      const tokenHash = sha256(body.token);
      const now = new Date();
      const accepted = await db.transaction(async (tx) => {
        // The sender's membership is locked before the invitation, the order in which removing or demoting
        // them takes the two (their member row, then their invitations), so neither waits on the other in a
        // circle. A removal that holds it first wins (the sender is gone: refused below, or the invitation
        // already revoked); one that comes after this accept finds the invitation no longer pending, and the
        // new member stays.
        const [found] = await tx
          .select({ serverId: serverInvitations.serverId, invitedBy: serverInvitations.invitedBy })
          .from(serverInvitations)
          .where(eq(serverInvitations.tokenHash, tokenHash))
          .limit(1);
        if (!found) return null;
        // The owner (who may have moved to the invited address since) holds every key already.
        const [server] = await tx.select({ ownerId: servers.ownerId }).from(servers).where(eq(servers.id, found.serverId)).limit(1);
        const bySender = Boolean(server) && found.invitedBy !== server?.ownerId;
        const [sender] =
          bySender && found.invitedBy
            ? await tx
                .select({ role: serverMembers.role })
                .from(serverMembers)
                .where(and(eq(serverMembers.serverId, found.serverId), eq(serverMembers.userId, found.invitedBy)))
                .limit(1)
                .for('update')
            : [];
        // One conditional update decides: of two accepts at once, only one finds the row still open.
        const [row] = await tx
          .update(serverInvitations)
          .set({ acceptedAt: now, acceptedBy: user.id })
          .where(
            and(
              eq(serverInvitations.tokenHash, tokenHash),
              isNull(serverInvitations.acceptedAt),
              gt(serverInvitations.expiresAt, now),
              eq(serverInvitations.emailAddress, user.emailAddress),
            ),
          )
          .returning();
        if (!row) return null;
        // Only as good as its sender's authority now: thrown in the transaction, so the row stays open
        // for the revocation that removing or demoting the sender makes.
        if (bySender && !mayStillInvite(sender?.role ?? null, row.role))
          throw new ApiError('INVALID_STATE', undefined, memberMessages.senderGone);
        if (server && server.ownerId !== user.id)
          await tx
            .insert(serverMembers)
            .values({ serverId: row.serverId, userId: user.id, role: row.role })
            .onConflictDoUpdate({ target: [serverMembers.serverId, serverMembers.userId], set: { role: row.role } });
        await recordActivity(tx, {
          serverId: row.serverId,
          actorId: user.id,
          ip: request.ip,
          action: 'invitation.accept',
          target: row.role,
        });
        // Following the mailed link proved the mailbox, as a password reset does.
        if (!user.emailVerifiedAt) await tx.update(users).set({ emailVerifiedAt: now }).where(eq(users.id, user.id));
        return row;
      });
      if (!accepted) {
        const [row] = await db.select().from(serverInvitations).where(eq(serverInvitations.tokenHash, tokenHash)).limit(1);
        if (!row) throw new ApiError('INVALID_INPUT', undefined, memberMessages.invalidToken);
        if (row.acceptedAt) throw new ApiError('INVALID_STATE', undefined, memberMessages.usedToken);
        if (row.expiresAt <= now) throw new ApiError('INVALID_STATE', undefined, memberMessages.expiredToken);
        throw new ApiError('NO_PERMISSION', undefined, memberMessages.otherAddress);
      }
      if (!user.emailVerifiedAt) ctx.sessions.forgetUser(user.id);
      directory.accessChanged({ serverId: accepted.serverId, userId: user.id, role: accepted.role });
      return { serverId: accepted.serverId };
    },
    { limit: 'invitationAcceptPerIp' },
  );
}
