import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import matter from 'gray-matter';
import { marked } from 'marked';

/** Markdown content in the repository, rendered at build time (prerender) — never shipped to browsers. */
const contentDir = path.resolve(process.cwd(), 'content');
export const POSTS_PER_PAGE = 3;

export interface PostSummary {
  slug: string;
  title: string;
  date: string;
  author: string;
  summary: string;
  cover: string;
  readingMinutes: number;
}

export interface Post extends PostSummary {
  html: string;
  previous: { slug: string; title: string } | null;
  next: { slug: string; title: string } | null;
}

function read(file: string) {
  const { data, content } = matter(readFileSync(file, 'utf8'));
  return { data: data as Record<string, unknown>, content };
}

const asDate = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));

export function allPosts(): (PostSummary & { content: string })[] {
  const dir = path.join(contentDir, 'blog');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .map((file) => {
      const { data, content } = read(path.join(dir, file));
      const words = content.split(/\s+/).filter(Boolean).length;
      return {
        slug: file.replace(/\.md$/, ''),
        title: String(data.title),
        date: asDate(data.date),
        author: String(data.author ?? 'The Spawnpoint team'),
        summary: String(data.summary ?? ''),
        cover: String(data.cover ?? ''),
        readingMinutes: Math.max(1, Math.round(words / 220)),
        content,
      };
    })
    .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.slug.localeCompare(b.slug)));
}

export function pageCount(): number {
  return Math.max(1, Math.ceil(allPosts().length / POSTS_PER_PAGE));
}

export function postsPage(page: number): { posts: PostSummary[]; page: number; pages: number } | null {
  const posts = allPosts();
  const pages = Math.max(1, Math.ceil(posts.length / POSTS_PER_PAGE));
  if (!Number.isInteger(page) || page < 1 || page > pages) return null;
  return { posts: posts.slice((page - 1) * POSTS_PER_PAGE, page * POSTS_PER_PAGE).map(({ content: _content, ...p }) => p), page, pages };
}

export function post(slug: string): Post | null {
  const posts = allPosts();
  const index = posts.findIndex((p) => p.slug === slug);
  const found = posts[index];
  if (!found) return null;
  const { content, ...summary } = found;
  const newer = posts[index - 1];
  const older = posts[index + 1];
  return {
    ...summary,
    html: marked.parse(content, { async: false }),
    previous: older ? { slug: older.slug, title: older.title } : null,
    next: newer ? { slug: newer.slug, title: newer.title } : null,
  };
}

export function legal(name: 'terms-of-service' | 'privacy-policy' | 'cookie-policy'): { title: string; effective: string; html: string } {
  const { data, content } = read(path.join(contentDir, 'legal', `${name}.md`));
  return { title: String(data.title), effective: asDate(data.effective), html: marked.parse(content, { async: false }) };
}
