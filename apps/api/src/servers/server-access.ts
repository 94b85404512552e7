import { rolePermissions, type PermissionKey, type ServerAccess, type ServerRole } from '@spawnpoint/contracts';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import type { ServerRow } from '../db/rows.ts';
import { serverMembers, servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';

/** What the owner of a server holds. */
export const ownerAccess: ServerAccess = { role: 'owner', permissions: [...rolePermissions.owner] };
export function accessOf(role: ServerRole): ServerAccess {
  return { role, permissions: [...rolePermissions[role]] };
}

/** A server with the caller's role on it, as the one permission check answers it. */
export interface AuthorizedServer {
  row: ServerRow;
  access: ServerAccess;
}

/**
 * The one permission check of every server endpoint and socket event: the server named in a path with
 * the user's role on it, if that role holds `permission`. Someone who is neither its owner nor a member
 * gets NOT_FOUND, so ids of other people's servers reveal nothing; a member whose role lacks the key
 * gets NO_PERMISSION. Read from the database each time, so a removed member or a lowered role is
 * refused at the very next call.
 */
export async function authorizeAccess(db: Db, userId: string, serverId: string, permission: PermissionKey): Promise<AuthorizedServer> {
  const [found] = await db
    .select({ row: servers, role: serverMembers.role })
    .from(servers)
    .leftJoin(serverMembers, and(eq(serverMembers.serverId, servers.id), eq(serverMembers.userId, userId)))
    .where(eq(servers.id, serverId))
    .limit(1);
  if (!found) throw new ApiError('NOT_FOUND');
  const role: ServerRole | null = found.row.ownerId === userId ? 'owner' : found.role;
  if (!role) throw new ApiError('NOT_FOUND');
  const access = accessOf(role);
  if (!access.permissions.includes(permission)) throw new ApiError('NO_PERMISSION');
  return { row: found.row, access };
}
