import { isRouteErrorResponse, Link, useLocation, useRouteError } from 'react-router';
import { showsErrorDetails } from '../lib/environment.ts';
import { buttonClass } from './button.tsx';

/** Code 404, 'Page not found', the fixed message, the path, and a link home. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <main className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center">
      <p className="text-6xl font-black text-brand-600">404</p>
      <h1 className="mt-4 text-3xl font-bold">Page not found</h1>
      <p className="mt-3 text-slate-600">Sorry, the page you are looking for is not found.</p>
      <p className="mt-2 break-all font-mono text-sm text-slate-500">{path}</p>
      <Link to="/" className={buttonClass('primary', 'mt-8')}>
        Back to the home page
      </Link>
    </main>
  );
}

/** Outside production the details show; in production an unknown error shows the generic text. */
export function ErrorPage({ error }: { error: unknown }) {
  const detail = !showsErrorDetails() ? null : error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : JSON.stringify(error);
  return (
    <main className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center">
      <h1 className="text-3xl font-bold">Error</h1>
      <p className="mt-3 text-slate-600">An unknown error occurred, please try again.</p>
      {detail ? (
        <pre className="mt-6 max-w-full overflow-auto rounded bg-slate-900 p-4 text-left text-xs text-slate-100">{detail}</pre>
      ) : null}
      <a href="/" className={buttonClass('primary', 'mt-8')}>
        Back to the home page
      </a>
    </main>
  );
}

/**
 * A route's own error boundary: its 404 is the same page an unknown path shows, inside the same layout
 * (the root's boundary would drop the site's header and footer).
 */
export function RouteErrorBoundary() {
  const error = useRouteError();
  const { pathname } = useLocation();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage path={pathname} />;
  return <ErrorPage error={error} />;
}
