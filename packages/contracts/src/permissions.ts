/** Permission keys (ARCHITECTURE §7). The owner holds all; member roles are subsets. */
export const permissionKeys = [
  'console.read',
  'console.command',
  'power.start',
  'power.stop',
  'files.read',
  'files.write',
  'backups.create',
  'backups.restore',
  'plugins.manage',
  'properties.update',
  'appearance.update',
  'members.manage',
  'billing.manage',
  'server.delete',
] as const;
export type PermissionKey = (typeof permissionKeys)[number];

export const rolePermissions: Record<'viewer' | 'moderator' | 'administrator', readonly PermissionKey[]> = {
  viewer: ['console.read'],
  moderator: ['console.read', 'console.command', 'power.start', 'power.stop'],
  administrator: permissionKeys.filter((k) => k !== 'billing.manage' && k !== 'server.delete' && k !== 'members.manage'),
};
