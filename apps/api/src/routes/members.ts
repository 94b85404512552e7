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
import { and, asc, count, eq, gt, isNull, lte } from 'drizzle-orm';
import { newId, randomToken, sha256 } from '../auth/tokens.ts';
import type { AppContext } from '../context.ts';
import { serverInvitations, serverMembers, serverSchedules, servers, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { invitationMail } from '../mail/templates.ts';
import { listActivity, recordActivity, type ActivityNote, type DbOrTx } from '../servers/activity.ts';
import type { ServerRow } from '../db/rows.ts';

type InvitationRow = typeof serverInvitations.$inferSelect;

/**
 * Whether a member with `role` (null: no longer a member) may still stand behind an invitation for
 * `invited`: an invitation is only as good as its sender's authority now, so a removed or demoted
 * administrator cannot come back in through an invitation sent beforehand to a second mailbox.
 */
export const mayStillInvite = (role: ServerRole | null, invited: ServerRole) =>
  role !== null && roleHas(role, 'members.manage') && canGrant(role, invited);

function presentInvitation(row: InvitationRow): ServerInvitation {
  return {
    invitationId: row.id,
    emailAddress: row.emailAddress,
    role: row.role,
    sentAt: row.sentAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}

/**
 * Members of a server and invitations (docs/guide.md, Members, roles and invitations). Every route here
 * needs `members.manage`, checked by the router; on top of it nobody grants (or takes away) a role whose
 * keys they lack, nobody changes their own role, and the owner is not a member at all, so cannot be changed
 * or removed.
 */
export function memberRoutes(route: Route, ctx: AppContext): void {
  const { db } = ctx.database;
  const { directory } = ctx.game;

  async function sendInvitation(server: ServerRow, inviter: string, row: InvitationRow, token: string): Promise<void> {
    const [account] = await db.select({ id: users.id }).from(users).where(eq(users.emailAddress, row.emailAddress)).limit(1);
    await ctx.mailer.send({
      to: row.emailAddress,
      ...invitationMail(ctx.config.publicUrl, token, { serverName: server.name, inviter, role: row.role, hasAccount: Boolean(account) }),
    });
  }

  /** A member of the server whom the caller may change: not themselves, not the owner, not above them. */
  async function changeableMember(server: ServerRow, actor: { userId: string; role: ServerRole }, userId: string) {
    if (userId === server.ownerId) throw new ApiError('INVALID_INPUT', undefined, memberMessages.ownerRole);
    if (userId === actor.userId) throw new ApiError('INVALID_INPUT', undefined, memberMessages.ownRole);
    const [member] = await db
      .select({ role: serverMembers.role, emailAddress: users.emailAddress })
      .from(serverMembers)
      .innerJoin(users, eq(users.id, serverMembers.userId))
      .where(and(eq(serverMembers.serverId, server.id), eq(serverMembers.userId, userId)))
      .limit(1);
    if (!member) throw new ApiError('NOT_FOUND');
    if (!canGrant(actor.role, member.role)) throw new ApiError('NO_PERMISSION', undefined, memberMessages.grant);
    return member;
  }

  /**
   * In the transaction that removes a member or changes their role (or they leave): their pending invitations
   * for roles they can no longer give are revoked (and logged), so the owner's list shows what can still be
   * accepted, and without `schedules.manage` the schedules they made are paused (and logged).
   */
  async function withdrawAuthorityOf(
    tx: DbOrTx,
    record: (tx: DbOrTx, note: ActivityNote) => Promise<void>,
    serverId: string,
    member: { userId: string; emailAddress: string; role: ServerRole | null },
  ): Promise<void> {
    const sent = await tx
      .select({ id: serverInvitations.id, emailAddress: serverInvitations.emailAddress, role: serverInvitations.role })
      .from(serverInvitations)
      .where(
        and(eq(serverInvitations.serverId, serverId), eq(serverInvitations.invitedBy, member.userId), isNull(serverInvitations.acceptedAt)),
      );
    for (const invitation of sent.filter((i) => !mayStillInvite(member.role, i.role))) {
      await tx.delete(serverInvitations).where(eq(serverInvitations.id, invitation.id));
      await record(tx, { action: 'invitation.revoke', target: `${invitation.emailAddress} (sent by ${member.emailAddress})` });
    }
    // Their schedules would go on running commands, stops and backups on the authority they no longer have:
    // paused (and logged), for the owner or an administrator to review and resume as their own.
    if (member.role && roleHas(member.role, 'schedules.manage')) return;
    const paused = await tx
      .update(serverSchedules)
      .set({ enabled: false, nextRunAt: null })
      .where(and(eq(serverSchedules.serverId, serverId), eq(serverSchedules.createdBy, member.userId), eq(serverSchedules.enabled, true)))
      .returning({ name: serverSchedules.name });
    for (const schedule of paused)
      await record(tx, { action: 'schedule.update', target: `${schedule.name}: paused (made by ${member.emailAddress})` });
  }

  route(endpoints.serverMembers, async ({ server }) => {
    const [owner] = await db.select({ emailAddress: users.emailAddress }).from(users).where(eq(users.id, server.ownerId)).limit(1);
    const members = await db
      .select({ userId: serverMembers.userId, role: serverMembers.role, since: serverMembers.createdAt, emailAddress: users.emailAddress })
      .from(serverMembers)
      .innerJoin(users, eq(users.id, serverMembers.userId))
      .where(eq(serverMembers.serverId, server.id))
      .orderBy(asc(serverMembers.createdAt));
    const invitations = await db
      .select()
      .from(serverInvitations)
      .where(
        and(eq(serverInvitations.serverId, server.id), isNull(serverInvitations.acceptedAt), gt(serverInvitations.expiresAt, new Date())),
      )
      .orderBy(asc(serverInvitations.sentAt));
    return {
      members: [
        { userId: server.ownerId, emailAddress: owner?.emailAddress ?? '', role: 'owner' as const, since: server.createdAt.toISOString() },
        ...members.map((m) => ({ ...m, since: m.since.toISOString() })),
      ],
      invitations: invitations.map(presentInvitation),
    };
  });

  route(endpoints.serverActivity, async ({ server, session, access, query }) =>
    listActivity(db, server.id, query, { userId: session.user.id, managesMembers: access.permissions.includes('members.manage') }),
  );

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
    await sendInvitation(server, session.user.emailAddress, row, token);
    return presentInvitation(row);
  });

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
    await sendInvitation(server, session.user.emailAddress, row, token);
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

  route(endpoints.memberRole, async ({ session, server, access, params, body, recordActivity: record }) => {
    const member = await changeableMember(server, { userId: session.user.id, role: access.role }, params.userId);
    if (!canGrant(access.role, body.role)) throw new ApiError('NO_PERMISSION', undefined, memberMessages.grant);
    if (member.role !== body.role) {
      await db.transaction(async (tx) => {
        await tx
          .update(serverMembers)
          .set({ role: body.role })
          .where(and(eq(serverMembers.serverId, server.id), eq(serverMembers.userId, params.userId)));
        await record(tx, { action: 'member.role', target: `${member.emailAddress}: ${member.role} → ${body.role}` });
        await withdrawAuthorityOf(tx, record, server.id, { userId: params.userId, emailAddress: member.emailAddress, role: body.role });
      });
      directory.accessChanged({ serverId: server.id, userId: params.userId, role: body.role });
    }
    return null;
  });

  route(endpoints.memberRemove, async ({ session, server, access, params, recordActivity: record }) => {
    const member = await changeableMember(server, { userId: session.user.id, role: access.role }, params.userId);
    await db.transaction(async (tx) => {
      await tx.delete(serverMembers).where(and(eq(serverMembers.serverId, server.id), eq(serverMembers.userId, params.userId)));
      await record(tx, { action: 'member.remove', target: `${member.emailAddress} (${member.role})` });
      await withdrawAuthorityOf(tx, record, server.id, { userId: params.userId, emailAddress: member.emailAddress, role: null });
    });
    directory.accessChanged({ serverId: server.id, userId: params.userId, role: null });
    return null;
  });

  route(endpoints.memberLeave, async ({ session, server, access, recordActivity: record }) => {
    if (access.role === 'owner') throw new ApiError('INVALID_STATE', undefined, memberMessages.ownerLeave);
    const me = { userId: session.user.id, emailAddress: session.user.emailAddress, role: null };
    await db.transaction(async (tx) => {
      await tx.delete(serverMembers).where(and(eq(serverMembers.serverId, server.id), eq(serverMembers.userId, me.userId)));
      await record(tx, { action: 'member.leave', target: `${me.emailAddress} (${access.role})` });
      await withdrawAuthorityOf(tx, record, server.id, me);
    });
    directory.accessChanged({ serverId: server.id, userId: me.userId, role: null });
    return null;
  });

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
