import { canGrant, endpoints, memberMessages, roleHas, type ServerRole } from '@spawnpoint/contracts';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { Given } from '../context.ts';
import { serverInvitations, serverMembers, serverSchedules, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { mayStillInvite, presentInvitation } from './invitations.ts';
import { listActivity, type ActivityNote, type DbOrTx } from '../servers/activity.ts';
import type { ServerRow } from '../db/rows.ts';
import type { Db } from '../db/db-type.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'database', 'directory'>;

/**
 * Members of a server (docs/guide.md, Members, roles and invitations; invitations: invitations.ts). Every
 * route here needs `members.manage`, checked by the router; on top of it nobody grants (or takes away) a role whose
 * keys they lack, nobody changes their own role, and the owner is not a member at all, so cannot be changed
 * or removed.
 */
export function memberRoutes(route: Route, ctx: Services): void {
  listRoutes(route, ctx);
  membershipRoutes(route, ctx);
}

/** A member of the server whom the caller may change: not themselves, not the owner, not above them. */
async function changeableMember(db: Db, server: ServerRow, actor: { userId: string; role: ServerRole }, userId: string) {
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

/** Who is a member, who is invited, and what happened on the server. */
function listRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
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
}

/** A member's role changed, a member removed, a member leaving. */
function membershipRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const { directory } = ctx.game;
  route(endpoints.memberRole, async ({ session, server, access, params, body, recordActivity: record }) => {
    const member = await changeableMember(db, server, { userId: session.user.id, role: access.role }, params.userId);
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
    const member = await changeableMember(db, server, { userId: session.user.id, role: access.role }, params.userId);
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
}
