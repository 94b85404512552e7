/**
 * The public site (docs/benchmarks.md): JavaScript a first visit downloads on the landing and pricing pages
 * (gzipped, target ≤ 15 KB for the landing page), and Lighthouse performance and accessibility scores
 * (target 100) with Lighthouse's default mobile settings in Debian's Chromium. Where the landing page's
 * bytes come from: docs/performance.md, "Public site JavaScript".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { startStack } from './stack.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-site-'));
const stack = await startStack({ port: 3340, dataDir, gamePorts: '25940-25949' });
const chromePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Every script the page's HTML loads or preloads, fetched as a browser would, gzipped. */
async function javascriptKb(pathname: string): Promise<number> {
  const html = await (await fetch(`${stack.base}${pathname}`)).text();
  const urls = new Set<string>();
  for (const m of html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)) urls.add(m[1] as string);
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) urls.add(m[1] as string);
  let bytes = 0;
  for (const url of urls) bytes += gzipSync(Buffer.from(await (await fetch(new URL(url, stack.base))).arrayBuffer())).length;
  return Math.round((bytes / 1024) * 10) / 10;
}

const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
try {
  const pages: Record<string, { javascriptKbGzip: number; performance: number; accessibility: number }> = {};
  for (const pathname of ['/', '/pricing']) {
    const result = await lighthouse(`${stack.base}${pathname}`, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
    });
    const categories = result?.lhr.categories;
    pages[pathname] = {
      javascriptKbGzip: await javascriptKb(pathname),
      performance: Math.round((categories?.performance?.score ?? 0) * 100),
      accessibility: Math.round((categories?.accessibility?.score ?? 0) * 100),
    };
  }
  console.log(
    JSON.stringify({
      bench: 'site',
      pages,
      targets: { landingJavascriptKbGzip: 15, performance: 100, accessibility: 100 },
    }),
  );
} finally {
  chrome.kill();
  stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
