import { data, isRouteErrorResponse } from 'react-router';

/**
 * Blog posts and pages exist only as the build prerendered them (their loaders read Markdown at build
 * time). A path the build did not write has no data: the API answers its `.data` with 404
 * (apps/api/src/web.ts), and this makes that the route's 404, shown as the 404 page — not the generic
 * error page, which is what a page without data would otherwise show.
 */
export async function builtPageData<T>(serverLoader: () => Promise<T>, url: string): Promise<T> {
  try {
    return await serverLoader();
  } catch (error) {
    if (isRouteErrorResponse(error)) throw error;
    // Ask the server whether the path has a page rather than guessing from the error: a dropped connection
    // must stay an error, not become "not found".
    const probe = await fetch(`${new URL(url).pathname.replace(/\/+$/, '')}.data`, { method: 'HEAD' }).catch(() => null);
    if (probe?.status === 404) throw data(null, { status: 404 });
    throw error;
  }
}
