import { createHash } from 'node:crypto';
import { endpointList } from '@spawnpoint/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, uniqueIp } from './test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.cleanup();
});

const get = (url: string) => t.app.inject({ method: 'GET', url, remoteAddress: uniqueIp() });

describe('OpenAPI document', () => {
  it('documents every API route the app registers, and nothing it does not', () => {
    const registered = new Set(
      t.routes
        // `/v1/*` is the catch-all that answers NOT_FOUND for unknown API paths.
        .filter((r) => (r.url.startsWith('/v1/') || r.url === '/healthz' || r.url === '/metrics') && !r.url.endsWith('*'))
        .map((r) => `${r.method} ${r.url}`),
    );
    const documented = new Set(endpointList.map((e) => `${e.method} ${e.path}`));
    expect(
      [...registered].filter((r) => !documented.has(r)),
      'registered but not documented',
    ).toEqual([]);
    expect(
      [...documented].filter((d) => !registered.has(d)),
      'documented but not registered',
    ).toEqual([]);
  });

  it('serves OpenAPI 3.1 with request and result schemas from the contracts', async () => {
    const res = await get('/v1/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const register = doc.paths['/v1/auth/register'].post;
    expect(register.requestBody.content['application/json'].schema.required).toEqual(['emailAddress', 'password']);
    const server = doc.paths['/v1/server/{serverId}'].get;
    expect(server.parameters).toContainEqual({ name: 'serverId', in: 'path', required: true, schema: { type: 'string' } });
    expect(server.responses['200'].content['application/json'].schema.properties.result.required).toContain('publicListing');
    expect(server['x-permission']).toBe('console.read');
    expect(doc.paths['/v1/server/{serverId}/files/list'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['serverId', 'path']);
    expect(doc.components.schemas.Failure.properties.status.enum).toContain('INVALID_STATE');
  });

  it('has a readable page listing the endpoints', async () => {
    const res = await get('/v1/docs');
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<code>/v1/server/{serverId}/backups/{backupId}/restore</code>');
    expect(res.body).not.toContain('<script');
    // Its one style sheet is allowed by its hash, and nothing else is: no script, no other style.
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.body)?.[1] ?? '';
    expect(style).toContain('@media');
    const hash = createHash('sha256').update(style).digest('base64');
    expect(res.headers['content-security-policy']).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; frame-ancestors 'none'; base-uri 'none'`,
    );
  });
});
