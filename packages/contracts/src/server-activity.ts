import { z } from 'zod';

/**
 * The activity log of a server: who did what on it. Each entry names an action of this
 * list and a target (a path, a backup, a member's address, a command line) — never file contents or secrets.
 */
export const serverActivityActions = [
  'server.start',
  'server.stop',
  'server.restart',
  'server.kill',
  'console.command',
  'file.upload',
  'file.create',
  'file.save',
  'file.rename',
  'file.delete',
  'file.mkdir',
  'file.archive',
  'file.extract',
  'file.chmod',
  'backup.create',
  'backup.restore',
  'backup.delete',
  'backup.lock',
  'backup.unlock',
  'properties.update',
  'players.update',
  'member.role',
  'member.remove',
  'member.leave',
  'invitation.create',
  'invitation.resend',
  'invitation.revoke',
  'invitation.accept',
  'schedule.create',
  'schedule.update',
  'schedule.delete',
  'schedule.run',
  'schedule.failed',
  'server.eula',
  'server.version',
  'appearance.update',
  'listing.update',
  'plugin.install',
  'plugin.enable',
  'plugin.disable',
  'plugin.settings',
  'plugin.remove',
  'plugin.upload',
  'plugin.update',
  'plan.choose',
  'plan.renew',
  'plan.cancel',
  'shop.buy',
] as const;
export type ServerActivityAction = (typeof serverActivityActions)[number];
export const serverActivityAction = z.enum(serverActivityActions);

/** How the web app names each action (in the past tense, after the actor's address). */
export const serverActivityLabels: Record<ServerActivityAction, string> = {
  'server.start': 'Started the server',
  'server.stop': 'Stopped the server',
  'server.restart': 'Restarted the server',
  'server.kill': 'Killed the server process',
  'server.version': 'Changed the Minecraft version',
  'console.command': 'Ran a console command',
  'file.upload': 'Uploaded a file',
  'file.create': 'Created a file',
  'file.save': 'Saved a file',
  'file.rename': 'Renamed or moved a file',
  'file.delete': 'Deleted files',
  'file.mkdir': 'Created a folder',
  'file.archive': 'Archived files',
  'file.extract': 'Extracted an archive',
  'file.chmod': 'Changed file permissions',
  'backup.create': 'Made a backup',
  'backup.restore': 'Restored a backup',
  'backup.delete': 'Deleted a backup',
  'backup.lock': 'Locked a backup',
  'backup.unlock': 'Unlocked a backup',
  'properties.update': 'Changed server properties',
  'players.update': 'Changed the players lists',
  'member.role': "Changed a member's role",
  'member.remove': 'Removed a member',
  'member.leave': 'Left the server',
  'invitation.create': 'Invited someone',
  'invitation.resend': 'Resent an invitation',
  'invitation.revoke': 'Revoked an invitation',
  'invitation.accept': 'Accepted an invitation',
  'schedule.create': 'Added a schedule',
  'schedule.update': 'Changed a schedule',
  'schedule.delete': 'Deleted a schedule',
  'schedule.run': 'A schedule ran',
  'schedule.failed': 'A schedule failed',
  'server.eula': 'Accepted the Minecraft EULA',
  'appearance.update': 'Changed the MOTD or icon',
  'listing.update': 'Changed the public listing',
  'plugin.install': 'Installed a plugin',
  'plugin.enable': 'Turned a plugin on',
  'plugin.disable': 'Turned a plugin off',
  'plugin.settings': "Changed a plugin's settings",
  'plugin.remove': 'Removed a plugin',
  'plugin.upload': 'Uploaded a plugin',
  'plugin.update': 'Updated a plugin',
  'plan.choose': 'Chose a plan',
  'plan.renew': "Turned the plan's renewal on",
  'plan.cancel': "Turned the plan's renewal off",
  'shop.buy': 'Bought in the shop',
};

/** Entries per page: `limit` defaults to this, and is at most SERVER_ACTIVITY_PAGE_MAX. */
export const SERVER_ACTIVITY_PAGE = 50;
export const SERVER_ACTIVITY_PAGE_MAX = 100;
/** Entries older than this many days are deleted (the API prunes hourly). */
export const SERVER_ACTIVITY_RETENTION_DAYS = 90;
/** A target is cut to this many characters (a console command line is at most 256 anyway). */
export const ACTIVITY_TARGET_MAX = 300;

export const serverActivityQuery = z.object({
  /** The `next` cursor of the previous page: entries older than it. */
  before: z
    .string()
    .regex(/^\d{1,18}$/, 'This is not a cursor of the activity log.')
    .optional(),
  limit: z.coerce.number().int().min(1).max(SERVER_ACTIVITY_PAGE_MAX).default(SERVER_ACTIVITY_PAGE),
});

export const serverActivityEntry = z.object({
  /** Also the cursor: entries are ordered by it, newest first. */
  id: z.string(),
  actor: z.object({
    /** Null once the account was deleted; the address is the one it had at the time. */
    userId: z.string().nullable(),
    emailAddress: z.string(),
  }),
  action: serverActivityAction,
  target: z.string(),
  ip: z.string().nullable(),
  createdAt: z.string(),
});
export type ServerActivityEntry = z.infer<typeof serverActivityEntry>;

export const serverActivityPage = z.object({
  entries: z.array(serverActivityEntry),
  /** Pass as `before` for older entries; null when there are none. */
  next: z.string().nullable(),
});
export type ServerActivityPage = z.infer<typeof serverActivityPage>;
