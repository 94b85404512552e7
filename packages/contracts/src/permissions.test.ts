import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canGrant, memberRoles, permissionKeys, rolePermissions, serverRoles } from './permissions.ts';

describe('roles', () => {
  it('the table in docs/guide.md says what contracts hold', () => {
    const readme = readFileSync(path.join(import.meta.dirname, '../../../docs/guide.md'), 'utf8');
    const rows = readme
      .split('\n')
      .filter((line) => /^\| `[a-z]+\.[a-z]+` /.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    const table = Object.fromEntries(rows.map(([key, ...marks]) => [key?.replaceAll('`', ''), marks.map((m) => m === '✓')]));
    expect(table).toEqual(Object.fromEntries(permissionKeys.map((k) => [k, serverRoles.map((r) => rolePermissions[r].includes(k))])));
  });

  it('each role holds the keys of the roles below it, and only the owner grants the owner', () => {
    for (let i = 1; i < serverRoles.length; i++) {
      const lower = serverRoles[i - 1] as (typeof serverRoles)[number];
      const higher = serverRoles[i] as (typeof serverRoles)[number];
      expect(rolePermissions[lower].every((k) => rolePermissions[higher].includes(k))).toBe(true);
    }
    expect(memberRoles.filter((r) => canGrant('administrator', r))).toEqual(['viewer', 'moderator', 'administrator']);
    expect(memberRoles.filter((r) => canGrant('moderator', r))).toEqual(['viewer', 'moderator']);
    expect(canGrant('owner', 'owner')).toBe(false);
  });
});
