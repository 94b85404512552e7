import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * The landing page's JavaScript budget (docs/performance.md, "Public site JavaScript"): every script the
 * prerendered `/` loads or modulepreloads, gzipped as bench/site.ts counts it, at most 15 KB. It reads the
 * web build, so it runs only when one exists: `npm test` builds the web app before Vitest
 * (scripts/test.ts); run alone, it checks whatever build is on disk.
 */
const client = path.resolve(import.meta.dirname, '../apps/web/build/client');
const landing = path.join(client, 'index.html');
const LANDING_JAVASCRIPT_MAX_BYTES = 15 * 1024;

/** Same-origin script URLs a page's HTML loads (`<script src>`) or preloads (`<link rel="modulepreload">`). */
function scriptsOf(html: string): string[] {
  const urls = new Set<string>();
  for (const m of html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)) urls.add(m[1] as string);
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) urls.add(m[1] as string);
  return [...urls];
}

describe.skipIf(!existsSync(landing))('landing page JavaScript (built web app)', () => {
  it('loads at most 15 KB of JavaScript, gzipped, and none of the app or the schema library', () => {
    const scripts = scriptsOf(readFileSync(landing, 'utf8'));
    expect(scripts.length).toBeGreaterThan(0);
    let bytes = 0;
    for (const url of scripts) {
      expect(url).toMatch(/^\/assets\/[^/]+\.js$/);
      const code = readFileSync(path.join(client, url));
      // zod's error texts, kept by the minifier: the schema library is what once tripled this figure.
      expect(code.includes('Invalid input'), `${url} contains zod`).toBe(false);
      bytes += gzipSync(code).length;
    }
    expect(bytes).toBeLessThanOrEqual(LANDING_JAVASCRIPT_MAX_BYTES);
  });
});
