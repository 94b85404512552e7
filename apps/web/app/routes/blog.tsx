import { data, Link } from 'react-router';
import { RouteErrorBoundary } from '../components/error-pages.tsx';
import { builtPageData } from '../lib/built-pages.ts';
import { pageMeta } from '../lib/meta.ts';
import type { Route } from './+types/blog';
import { postsPage } from '../lib/content.server.ts';

export function loader({ params }: Route.LoaderArgs) {
  const page = params.current === undefined ? 1 : Number(params.current);
  const result = postsPage(page);
  if (!result) throw data(null, { status: 404 });
  return result;
}

// Runs in the browser only for paths the build did not prerender (and on navigation): see built-pages.ts.
export function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return builtPageData(serverLoader, request.url);
}

export function ErrorBoundary() {
  return <RouteErrorBoundary />;
}

export function meta({ loaderData }: Route.MetaArgs) {
  if (!loaderData) return [{ title: 'Page not found · Spawnpoint' }, { name: 'robots', content: 'noindex' }];
  const page = loaderData.page;
  return pageMeta('blog', 'Guides for Minecraft server owners: setting up, backups, the console, portals, and how Spawnpoint works.', {
    path: page === 1 ? '/blog' : `/blog/page/${page}`,
    title: page === 1 ? 'Blog' : `Blog, page ${page}`,
  });
}

const longDate = (iso: string) => new Date(`${iso}T12:00:00Z`).toLocaleDateString('en-US', { dateStyle: 'long' });

export default function Blog({ loaderData }: Route.ComponentProps) {
  const { posts, page, pages } = loaderData;
  return (
    <main className="mx-auto max-w-4xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">Blog</h1>
      <p className="mt-3 text-lg text-slate-600">Guides for server owners and news from Spawnpoint.</p>
      <ul className="mt-10 space-y-8">
        {posts.map((post) => (
          <li key={post.slug} className="overflow-hidden rounded-2xl border border-slate-200 bg-white sm:flex">
            <img
              src={post.cover}
              alt=""
              width={240}
              height={126}
              // The card is taller than a cover of its width: the cover is cut at the right, never its title at the left.
              className="h-40 w-full object-cover object-left sm:h-auto sm:w-60 sm:shrink-0"
              loading="lazy"
            />
            <div className="p-6">
              <h2 className="text-xl font-bold">
                <Link to={`/blog/${post.slug}`} className="hover:underline">
                  {post.title}
                </Link>
              </h2>
              <p className="mt-1 text-sm text-slate-500">
                {longDate(post.date)} · {post.readingMinutes} min read
              </p>
              <p className="mt-3 text-slate-700">{post.summary}</p>
            </div>
          </li>
        ))}
      </ul>
      {pages > 1 ? (
        <nav aria-label="Pages" className="mt-10 flex items-center justify-between">
          {page > 1 ? (
            <Link to={page === 2 ? '/blog' : `/blog/page/${page - 1}`} className="font-semibold text-brand-700 hover:underline">
              ← Newer posts
            </Link>
          ) : (
            <span />
          )}
          <span className="text-sm text-slate-500">
            Page {page} of {pages}
          </span>
          {page < pages ? (
            <Link to={`/blog/page/${page + 1}`} className="font-semibold text-brand-700 hover:underline">
              Older posts →
            </Link>
          ) : (
            <span />
          )}
        </nav>
      ) : null}
      <p className="mt-8 text-sm">
        <a href="/blog/rss.xml" className="text-brand-700 hover:underline">
          RSS feed
        </a>
      </p>
    </main>
  );
}
