import { z } from 'zod';

/**
 * Permission keys (docs/guide.md, Members, roles and invitations). Every server endpoint names one in the
 * endpoint table, every socket event in `socketEventPermissions`; the API checks it with one function (the
 * directory's `authorize`).
 */
export const permissionKeys = [
  'console.read',
  'console.command',
  'power.start',
  'power.stop',
  'players.manage',
  'files.read',
  'files.write',
  'backups.create',
  'backups.restore',
  // Deleting, locking and unlocking: a moderator who makes backups must not be able to destroy them.
  'backups.delete',
  'plugins.manage',
  'properties.update',
  'appearance.update',
  'activity.read',
  'schedules.manage',
  'members.manage',
  'billing.manage',
  'server.delete',
] as const;
export type PermissionKey = (typeof permissionKeys)[number];
export const permissionKey = z.enum(permissionKeys);

/** The roles a member can be given; the owner is not a member but the server's account. */
export const memberRoles = ['viewer', 'moderator', 'administrator'] as const;
export type MemberRole = (typeof memberRoles)[number];
export const memberRole = z.enum(memberRoles, { error: 'Choose a role: viewer, moderator or administrator' });
export const serverRoles = [...memberRoles, 'owner'] as const;
export type ServerRole = (typeof serverRoles)[number];
export const serverRole = z.enum(serverRoles);

const viewer: readonly PermissionKey[] = ['console.read', 'files.read', 'activity.read'];
const moderator: readonly PermissionKey[] = [...viewer, 'console.command', 'power.start', 'power.stop', 'players.manage', 'backups.create'];
const ownerOnly: readonly PermissionKey[] = ['billing.manage', 'server.delete'];

/**
 * What each role holds. A role's keys contain those of the roles before it; the owner holds every key.
 * Administrators manage members, but only with roles whose keys they hold themselves (so never the owner's).
 */
export const rolePermissions: Record<ServerRole, readonly PermissionKey[]> = {
  viewer,
  moderator,
  administrator: permissionKeys.filter((k) => !ownerOnly.includes(k)),
  owner: permissionKeys,
};

export function roleHas(role: ServerRole, key: PermissionKey): boolean {
  return rolePermissions[role].includes(key);
}

/** Whether someone with `actor`'s keys may give (or take away) `target`: nobody grants a key they lack. */
export function canGrant(actor: ServerRole, target: ServerRole): boolean {
  const held = rolePermissions[actor];
  return target !== 'owner' && rolePermissions[target].every((k) => held.includes(k));
}

/** The browser's socket events that act on a server, with the key each needs (checked as the endpoints' are). */
export const socketEventPermissions = {
  'server:subscribe': 'console.read',
  'server:command': 'console.command',
} as const satisfies Record<string, PermissionKey>;

/** A one-line description per role, for the Members page and the README's table. */
export const roleDescriptions: Record<ServerRole, string> = {
  viewer: 'Watches the console and reads files and the activity log.',
  moderator: 'Also runs commands, starts and stops the server, manages players and makes backups.',
  administrator: 'Everything but billing and deleting the server, including files, settings and members.',
  owner: 'Everything, including billing and deleting the server.',
};

/**
 * A backup made with every slot taken deletes the oldest unlocked one when it completes; a role without
 * `backups.delete` (a moderator) may not do that, or three backups of a wrecked world would replace every
 * good one.
 */
export const backupSlotsFullMessage = (limit: number) =>
  `All ${limit} backup slots are used, and a new backup would delete the oldest. Ask the owner or an administrator to delete one first.`;
