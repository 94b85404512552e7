/**
 * After `react-router build`: writes sitemap.xml, robots.txt and the blog's RSS feed into the client build,
 * from the same route table and Markdown files the pages come from.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { routeTable } from '@spawnpoint/contracts';
import matter from 'gray-matter';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'build/client');
const site = (process.env.PUBLIC_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const esc = (v: string) => v.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

const posts = readdirSync(path.join(root, 'content/blog'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => {
    const { data } = matter(readFileSync(path.join(root, 'content/blog', f), 'utf8'));
    const date = data.date instanceof Date ? data.date : new Date(String(data.date));
    return { slug: f.replace(/\.md$/, ''), title: String(data.title), summary: String(data.summary ?? ''), date };
  })
  .sort((a, b) => b.date.getTime() - a.date.getTime());

// Every prerendered page of the table, every post, every blog page.
const pages = [
  ...routeTable.filter((r) => r.prerender === true).map((r) => r.path),
  ...posts.map((p) => `/blog/${p.slug}`),
  ...readdirSync(path.join(out, 'blog/page'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `/blog/page/${d.name}`),
];
writeFileSync(
  path.join(out, 'sitemap.xml'),
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${pages.map((p) => `  <url><loc>${esc(site + p)}</loc></url>`).join('\n')}\n</urlset>\n`,
);

writeFileSync(
  path.join(out, 'robots.txt'),
  `User-agent: *\nAllow: /\nDisallow: /servers\nDisallow: /account\n\nSitemap: ${site}/sitemap.xml\n`,
);

const items = posts
  .map(
    (p) =>
      `    <item>\n      <title>${esc(p.title)}</title>\n      <link>${esc(`${site}/blog/${p.slug}`)}</link>\n      <guid>${esc(`${site}/blog/${p.slug}`)}</guid>\n      <pubDate>${p.date.toUTCString()}</pubDate>\n      <description>${esc(p.summary)}</description>\n    </item>`,
  )
  .join('\n');
writeFileSync(
  path.join(out, 'blog/rss.xml'),
  `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n  <channel>\n    <title>Spawnpoint blog</title>\n    <link>${esc(`${site}/blog`)}</link>\n    <description>Guides for Minecraft server owners.</description>\n${items}\n  </channel>\n</rss>\n`,
);
console.log(`sitemap: ${pages.length} pages; rss: ${posts.length} posts`);
