import {
  ACTIVITY_TARGET_MAX,
  maskEmail,
  SERVER_ACTIVITY_RETENTION_DAYS,
  type AgentUploadEvent,
  type ServerActivityAction,
  type ServerActivityPage,
} from '@spawnpoint/contracts';
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { serverActivity, users } from '../db/schema.ts';

/** A database or a transaction of it: an entry is written in the change's own transaction where there is one. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/** What happened, as a route describes it: the action and what it acted on (never file contents or secrets). */
export interface ActivityNote {
  action: ServerActivityAction;
  target: string;
}

export interface ActivityEntryInput extends ActivityNote {
  serverId: string;
  /** Null for what the service did by itself (a schedule's run). */
  actorId: string | null;
  ip: string | null;
}

/**
 * Writes one entry of a server's activity log. The actor's address is read in the same statement, so it
 * is the one the account has at this moment (kept when the account later changes it or goes).
 */
export async function recordActivity(db: DbOrTx, entry: ActivityEntryInput): Promise<void> {
  const target = entry.target.length > ACTIVITY_TARGET_MAX ? `${entry.target.slice(0, ACTIVITY_TARGET_MAX - 1)}…` : entry.target;
  await db.insert(serverActivity).values({
    serverId: entry.serverId,
    actorId: entry.actorId,
    actorEmail:
      entry.actorId === null ? '' : sql`coalesce((select ${users.emailAddress} from ${users} where ${users.id} = ${entry.actorId}), '')`,
    action: entry.action,
    target,
    ip: entry.ip,
  });
}

/**
 * An upload that went straight to the node is logged as its uploader's once the node has written it, with
 * the address the API saw when it signed the link (signed in it, like the uploader), then acknowledged
 * (`recorded`); a failed write to the log is not, so the node sends it again. An uploader whose account is
 * gone since is logged as no one.
 */
export async function recordUpload(db: Db, event: AgentUploadEvent, recorded: () => void): Promise<void> {
  const [actor] = await db.select({ id: users.id }).from(users).where(eq(users.id, event.actorId)).limit(1);
  await recordActivity(db, {
    serverId: event.serverId,
    actorId: actor?.id ?? null,
    action: 'file.upload',
    target: event.path,
    ip: event.ip ?? null,
  });
  recorded();
}

/** Addresses in an entry's target (an invitation's or a member's): masked for readers who do not manage members. */
const ADDRESS_IN_TARGET = /[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+/gu;

/**
 * Who reads the log. Every role may (`activity.read`), but the addresses of origin and the email addresses
 * of invitations and members are for those who manage members (`members.manage`) — the members page is
 * theirs too: a viewer must not learn the owner's home address (a way to attack their connection) or the
 * mailboxes of people invited. A reader always sees the address of their own actions.
 */
export interface ActivityReader {
  userId: string;
  managesMembers: boolean;
}

/** A page of a server's log, newest first; `next` is the cursor of the page after it. */
export async function listActivity(
  db: Db,
  serverId: string,
  page: { before?: string | undefined; limit: number },
  reader: ActivityReader,
): Promise<ServerActivityPage> {
  const rows = await db
    .select()
    .from(serverActivity)
    .where(and(eq(serverActivity.serverId, serverId), page.before ? lt(serverActivity.seq, Number(page.before)) : undefined))
    .orderBy(desc(serverActivity.seq))
    .limit(page.limit + 1);
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    entries: shown.map((row) => ({
      id: String(row.seq),
      actor: { userId: row.actorId, emailAddress: row.actorEmail },
      action: row.action,
      target: reader.managesMembers ? row.target : row.target.replace(ADDRESS_IN_TARGET, maskEmail),
      ip: reader.managesMembers || row.actorId === reader.userId ? row.ip : null,
      createdAt: row.createdAt.toISOString(),
    })),
    next: rows.length > page.limit && last ? String(last.seq) : null,
  };
}

/** Deletes entries older than the retention (SERVER_ACTIVITY_RETENTION_DAYS); returns how many went. */
export async function pruneActivity(db: Db, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - SERVER_ACTIVITY_RETENTION_DAYS * 86_400_000);
  const gone = await db.delete(serverActivity).where(lt(serverActivity.createdAt, before)).returning({ seq: serverActivity.seq });
  return gone.length;
}

/** An upload that went straight to the node goes in the server's activity log, as work after answering. */
export function logUploads(
  intake: { onUpload: ((event: AgentUploadEvent, recorded: () => void) => void) | null },
  db: Db,
  background: (task: () => Promise<unknown>) => void,
): void {
  intake.onUpload = (event, recorded) => background(() => recordUpload(db, event, recorded));
}
