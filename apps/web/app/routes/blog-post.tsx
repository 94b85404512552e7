import { data, Link } from 'react-router';
import { RouteErrorBoundary } from '../components/error-pages.tsx';
import { builtPageData } from '../lib/built-pages.ts';
import { post } from '../lib/content.server.ts';
import { pageMeta } from '../lib/meta.ts';
import type { Route } from './+types/blog-post';

export function loader({ params }: Route.LoaderArgs) {
  const found = post(params.slug);
  if (!found) throw data(null, { status: 404 });
  return found;
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
  return pageMeta('blog-slug', loaderData.summary, { path: `/blog/${loaderData.slug}`, title: loaderData.title });
}

export default function BlogPost({ loaderData: p }: Route.ComponentProps) {
  return (
    <main className="mx-auto max-w-3xl px-4 py-12">
      <p className="text-sm">
        <Link to="/blog" className="text-brand-700 hover:underline">
          ← All posts
        </Link>
      </p>
      <article className="mt-4">
        <h1 className="text-4xl font-extrabold leading-tight">{p.title}</h1>
        <p className="mt-3 text-sm text-slate-500">
          {p.author} · {new Date(`${p.date}T12:00:00Z`).toLocaleDateString('en-US', { dateStyle: 'long' })} · {p.readingMinutes} min read
        </p>
        <img src={p.cover} alt="" width={1200} height={630} className="mt-6 w-full rounded-2xl" />
        <div className="prose-content mt-8" dangerouslySetInnerHTML={{ __html: p.html }} />
      </article>
      <nav aria-label="More posts" className="mt-12 grid gap-4 border-t border-slate-200 pt-6 sm:grid-cols-2">
        {p.previous ? (
          <Link to={`/blog/${p.previous.slug}`} className="rounded-lg border border-slate-200 bg-white p-4 hover:border-brand-600">
            <span className="text-xs text-slate-500">Previous</span>
            <span className="block font-semibold">{p.previous.title}</span>
          </Link>
        ) : (
          <span />
        )}
        {p.next ? (
          <Link to={`/blog/${p.next.slug}`} className="rounded-lg border border-slate-200 bg-white p-4 text-right hover:border-brand-600">
            <span className="text-xs text-slate-500">Next</span>
            <span className="block font-semibold">{p.next.title}</span>
          </Link>
        ) : null}
      </nav>
    </main>
  );
}
