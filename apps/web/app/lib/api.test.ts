import { endpoints } from '@spawnpoint/contracts';
import { describe, expect, it } from 'vitest';
import { endpointUrl } from './api.ts';

describe('endpointUrl', () => {
  it('fills the path parameters of an entry, encoded', () => {
    expect(endpointUrl(endpoints.backupRestore, { params: { serverId: 'abc', backupId: 'x/y' } })).toBe(
      '/v1/server/abc/backups/x%2Fy/restore',
    );
  });

  it('appends the query, leaving out parts that are not given', () => {
    expect(endpointUrl(endpoints.fileList, { params: { serverId: 's1' }, query: { path: '/world/é b' } })).toBe(
      '/v1/server/s1/files/list?path=%2Fworld%2F%C3%A9+b',
    );
    expect(endpointUrl(endpoints.fileUpload, { params: { serverId: 's1' }, query: { path: '/a', size: undefined } })).toBe(
      '/v1/server/s1/files/upload?path=%2Fa',
    );
  });

  it('leaves a path without parameters as it is', () => {
    expect(endpointUrl(endpoints.userServers, {})).toBe('/v1/user/servers');
  });
});
