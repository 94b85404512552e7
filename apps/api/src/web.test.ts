import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, uniqueIp } from './test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
// A small stand-in for apps/web/build/client with the files the build writes.
let dist: string;
beforeAll(async () => {
  dist = path.join(process.env.TMPDIR ?? '/tmp', `spawnpoint-web-${process.pid}-${Date.now()}`);
  await mkdir(path.join(dist, 'pricing'), { recursive: true });
  await mkdir(path.join(dist, 'blog/real-post'), { recursive: true });
  await mkdir(path.join(dist, 'blog/page/2'), { recursive: true });
  await mkdir(path.join(dist, 'assets'), { recursive: true });
  await writeFile(path.join(dist, 'index.html'), '<html>landing</html>');
  await writeFile(path.join(dist, 'pricing/index.html'), '<html>pricing</html>');
  await writeFile(path.join(dist, '__spa-fallback.html'), '<html>spa</html>');
  // Blog posts and pages exist only as the build prerendered them, with their data files.
  await writeFile(path.join(dist, 'blog/real-post/index.html'), '<html>post</html>');
  await writeFile(path.join(dist, 'blog/real-post.data'), 'post data');
  await writeFile(path.join(dist, 'blog/page/2/index.html'), '<html>blog page 2</html>');
  await writeFile(path.join(dist, 'assets/app-abc123.js'), 'console.log(1)');
  // The build's compressed copy (apps/web/scripts/compress-build.ts).
  await writeFile(path.join(dist, 'assets/app-abc123.js.br'), brotliCompressSync('console.log(1)'));
  t = await buildTestApp({
    WEB_DIST: dist,
    ROUTE_RULES: JSON.stringify({ '/old-pricing': '/pricing', '/discord': 'https://discord.example/invite' }),
  });
});
afterAll(async () => {
  await t.cleanup();
});

const get = (url: string) => t.app.inject({ method: 'GET', url, remoteAddress: uniqueIp() });

describe('web app serving', () => {
  it('serves prerendered pages at their own path, with or without a trailing slash, never redirecting', async () => {
    for (const url of ['/pricing', '/pricing/']) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('<html>pricing</html>');
    }
    expect((await get('/')).body).toBe('<html>landing</html>');
  });

  it('serves the SPA page for dashboard routes of the table', async () => {
    for (const url of ['/login', '/servers', '/servers/abc123/console', '/account/security']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe('<html>spa</html>');
    }
  });

  it('answers a broken address of the site with the 404 page, and of the API with the envelope', async () => {
    const page = await get('/blog/%E0%A4%A');
    expect(page.statusCode).toBe(404);
    expect(page.body).toBe('<html>spa</html>');
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers).toMatchObject({ 'referrer-policy': 'strict-origin-when-cross-origin', 'cache-control': 'no-cache' });
    const api = await get('/v1/user/%E0%A4%A');
    expect(api.statusCode).toBe(400);
    expect(api.json().status).toBe('INVALID_INPUT');
    const post = await t.app.inject({ method: 'POST', url: '/blog/%E0%A4%A', remoteAddress: uniqueIp() });
    expect(post.statusCode).toBe(400);
    expect(post.json().status).toBe('INVALID_INPUT');
  });

  it('answers unknown paths with HTTP 404 and the SPA page that shows the 404 screen', async () => {
    // A server page whose name no listed server has is unknown too (the page shows "not found").
    for (const url of ['/nope', '/servers/a/b/c', '/account/nothing', '/server-list/nobody-listed-here']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toBe('<html>spa</html>');
    }
  });

  it('serves the blog posts and pages the build wrote, and answers any other blog path as unknown', async () => {
    expect((await get('/blog/real-post')).body).toBe('<html>post</html>');
    expect((await get('/blog/page/2/')).body).toBe('<html>blog page 2</html>');
    expect((await get('/blog/real-post.data')).body).toBe('post data');
    for (const url of ['/blog/page/1', '/blog/page/1/']) {
      const first = await get(url);
      expect([first.statusCode, first.headers.location], url).toEqual([301, '/blog']);
    }
    expect((await get('/blog/page/1?r=abc123')).headers.location).toBe('/blog?r=abc123');
    // The app fetches a page's `.data` when it has no prerendered data: an unknown one must say 404 too.
    for (const url of ['/blog/nope', '/blog/page/9', '/blog/page/abc', '/blog/nope.data', '/blog/page/9.data?_routes=blog-page-current']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toBe('<html>spa</html>');
    }
  });

  it('tells the pages it serves which environment it runs in, so the app knows whether to show error details', async () => {
    const dist = path.join(process.env.TMPDIR ?? '/tmp', `spawnpoint-web-env-${process.pid}-${Date.now()}`);
    await mkdir(dist, { recursive: true });
    const shell = '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/></head><body></body></html>';
    await writeFile(path.join(dist, 'index.html'), shell);
    await writeFile(path.join(dist, '__spa-fallback.html'), shell);
    for (const NODE_ENV of ['development', 'production']) {
      const app = await buildTestApp({ WEB_DIST: dist, NODE_ENV });
      try {
        for (const url of ['/', '/servers', '/nope']) {
          const res = await app.app.inject({ method: 'GET', url, remoteAddress: uniqueIp() });
          expect(res.body, url).toContain(`<head><meta name="spawnpoint-environment" content="${NODE_ENV}"><meta charSet="utf-8"/>`);
        }
      } finally {
        await app.cleanup();
      }
    }
  });

  it('lets pages connect to where browsers reach the nodes (uploads go straight there), and nowhere else', async () => {
    const token = 'x'.repeat(40);
    const node = (id: string, url: string, downloadUrl?: string) => ({
      id,
      url,
      token,
      publicHost: `${id}.example`,
      ...(downloadUrl ? { downloadUrl } : {}),
    });
    const AGENTS = JSON.stringify([
      node('node-1', 'http://10.0.0.11:3101', 'https://node-1.example/'),
      node('node-2', 'http://10.0.0.12:3101'),
      node('node-3', 'http://10.0.0.13:3101', 'https://node-1.example'),
    ]);
    const app = await buildTestApp({ WEB_DIST: dist, AGENTS });
    try {
      const policy = String(
        (await app.app.inject({ method: 'GET', url: '/pricing', remoteAddress: uniqueIp() })).headers['content-security-policy'],
      );
      expect(policy.split('; ').find((d) => d.startsWith('connect-src'))).toBe(
        "connect-src 'self' https://node-1.example http://10.0.0.12:3101",
      );
    } finally {
      await app.cleanup();
    }
    expect(String((await get('/pricing')).headers['content-security-policy'])).toContain("connect-src 'self';");
  });

  it('sends a Content-Security-Policy with HTML pages and a strict one with API answers', async () => {
    const page = await get('/pricing');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const api = await get('/v1/localization');
    expect(api.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
  });

  it('gives pages the document headers and API answers no-store', async () => {
    const everyAnswer = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' };
    const documentOnly = { 'referrer-policy': 'strict-origin-when-cross-origin', 'cross-origin-opener-policy': 'same-origin' };
    for (const url of ['/pricing', '/servers', '/v1/docs']) {
      const page = await get(url);
      expect(page.headers, url).toMatchObject({ ...everyAnswer, ...documentOnly });
      expect(page.headers['cache-control'], url).not.toBe('no-store');
    }
    const api = await get('/v1/localization');
    expect(api.headers).toMatchObject({ ...everyAnswer, 'cache-control': 'no-store' });
    expect(api.headers).not.toHaveProperty('referrer-policy');
    expect(api.headers).not.toHaveProperty('cross-origin-opener-policy');
    const failed = await get('/v1/user/me');
    expect(failed.statusCode).toBe(401);
    expect(failed.headers).toMatchObject({ ...everyAnswer, 'cache-control': 'no-store' });
    // A built asset keeps its own caching (API answers that set theirs: files.test.ts, downloads).
    expect((await get('/assets/app-abc123.js')).headers['cache-control']).toContain('immutable');
  });

  it('serves built assets with long-lived caching', async () => {
    const res = await get('/assets/app-abc123.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('immutable');
    expect((await get('/assets/missing.js')).statusCode).toBe(404);
  });

  it('sends /support paths to the help site and applies route rules', async () => {
    const support = await get('/support/billing');
    expect(support.statusCode).toBe(302);
    expect(support.headers.location).toBe('https://help.spawnpoint.gg');
    expect((await get('/old-pricing')).headers.location).toBe('/pricing');
    expect((await get('/discord')).headers.location).toBe('https://discord.example/invite');
  });

  it('sends pages and built files compressed to browsers that accept it, and plain to others', async () => {
    const page = await t.app.inject({
      method: 'GET',
      url: '/pricing',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
      remoteAddress: uniqueIp(),
    });
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.headers.vary).toContain('accept-encoding');
    expect(brotliDecompressSync(page.rawPayload).toString()).toBe('<html>pricing</html>');
    const gzipOnly = await t.app.inject({
      method: 'GET',
      url: '/servers',
      headers: { 'accept-encoding': 'gzip' },
      remoteAddress: uniqueIp(),
    });
    expect(gzipOnly.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipOnly.rawPayload).toString()).toBe('<html>spa</html>');
    const asset = await t.app.inject({
      method: 'GET',
      url: '/assets/app-abc123.js',
      headers: { 'accept-encoding': 'br' },
      remoteAddress: uniqueIp(),
    });
    expect(asset.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(asset.rawPayload).toString()).toBe('console.log(1)');
    expect((await get('/assets/app-abc123.js')).body).toBe('console.log(1)');
  });

  it('does not serve files outside the build folder', async () => {
    for (const url of ['/../package.json', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fpackage.json']) {
      const res = await get(url);
      expect(res.body).not.toContain('"name"');
      expect(res.body).not.toContain('root:');
    }
  });
});
