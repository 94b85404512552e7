import { describe, expect, it } from 'vitest';
import { isSupportPath, matchRoute, prerenderPaths, routeTable } from './routes.ts';

describe('route table', () => {
  it('has every page of the product, the schedules and activity tabs, the public page of a listed server, and billing (balance, receipts, the sandbox checkout), with a unique name and path', () => {
    expect(routeTable).toHaveLength(36);
    expect(new Set(routeTable.map((r) => r.name)).size).toBe(36);
    expect(new Set(routeTable.map((r) => r.path)).size).toBe(36);
    expect(matchRoute('/account/receipts/abc')?.name).toBe('account-receipt');
    expect(matchRoute('/checkout/sandbox/abc')?.access).toBe('authenticated');
    expect(matchRoute('/server-list/myserver')?.access).toBe('public');
    expect(matchRoute('/servers/x/schedules')?.name).toBe('servers-id-schedules');
  });

  it('takes a public server page only for a name a server could have, so no other text becomes its heading', () => {
    expect(matchRoute('/server-list/my-server')?.name).toBe('server-list-name');
    expect(matchRoute('/server-list/My-Server')?.name).toBe('server-list-name');
    for (const path of ['/server-list/Spawnpoint%20is%20closing%20-%20move%20to%20evil.example', '/server-list/ab', '/server-list/-dash'])
      expect(matchRoute(path), path).toBeNull();
  });

  it('matches static segments before parameters', () => {
    expect(matchRoute('/servers/create')?.name).toBe('servers-create');
    expect(matchRoute('/servers/abc')?.name).toBe('servers-id');
    expect(matchRoute('/blog/page/2')?.name).toBe('blog-page-current');
    expect(matchRoute('/blog/hello-world')?.name).toBe('blog-slug');
    expect(matchRoute('/servers/abc/console')?.layout).toBe('fullscreen');
  });

  it('ignores one trailing slash and refuses the rest', () => {
    expect(matchRoute('/pricing/')?.name).toBe('pricing');
    expect(matchRoute('/')?.name).toBe('index');
    expect(matchRoute('/nope')).toBeNull();
    expect(matchRoute('//servers')).toBeNull();
    expect(matchRoute('/servers/a/b/c')).toBeNull();
    expect(matchRoute('servers')).toBeNull();
  });

  it('gives the access classes of the spec', () => {
    expect(matchRoute('/login')?.access).toBe('unauthenticated');
    expect(matchRoute('/account/security')?.access).toBe('authenticated');
    expect(matchRoute('/servers/x/properties')?.access).toBe('authenticated');
    expect(matchRoute('/servers/x/activity')?.name).toBe('servers-id-activity');
    expect(matchRoute('/tools/nether-portal-calculator')?.access).toBe('public');
  });

  it('prerenders only public pages', () => {
    expect(prerenderPaths).toContain('/');
    expect(prerenderPaths).toContain('/pricing');
    for (const p of prerenderPaths) expect(matchRoute(p)?.access).toBe('public');
  });

  it('knows blog posts and pages only from content (no other path of theirs exists)', () => {
    expect(matchRoute('/blog/anything')?.prerender).toBe('content');
    expect(matchRoute('/blog/page/9')?.prerender).toBe('content');
    // Their patterns are no page to prerender; the build lists the real posts and pages.
    expect(prerenderPaths).not.toContain('/blog/:slug');
    expect(prerenderPaths).not.toContain('/blog/page/:current');
  });

  it('recognises support paths', () => {
    expect(isSupportPath('/support')).toBe(true);
    expect(isSupportPath('/support/articles/1')).toBe(true);
    expect(isSupportPath('/supporters')).toBe(true);
    expect(isSupportPath('/servers')).toBe(false);
  });
});
