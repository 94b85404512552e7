import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '@react-router/dev/config';
import { prerenderPaths } from '@spawnpoint/contracts';

const POSTS_PER_PAGE = 3;

/** Marketing pages, every blog post and every blog page are rendered to HTML at build time. */
function blogPaths(): string[] {
  const slugs = readdirSync(path.join(import.meta.dirname, 'content/blog'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => f.replace(/\.md$/, ''));
  const pages = Math.ceil(slugs.length / POSTS_PER_PAGE);
  return [...slugs.map((s) => `/blog/${s}`), ...Array.from({ length: Math.max(0, pages - 1) }, (_, i) => `/blog/page/${i + 2}`)];
}

export default {
  appDirectory: 'app',
  ssr: false,
  prerender: () => [...prerenderPaths, ...blogPaths()],
} satisfies Config;
