/**
 * Outside production errors show their details (docs/guide.md, "Errors as data"). Production is the API's
 * `NODE_ENV` at run time, not something the build can know: `vite build` always builds in production mode
 * (so `import.meta.env.PROD` is true even for `npm start`), and one build may be deployed anywhere. So the
 * API names its environment in a meta tag of every page it serves (apps/api/src/web.ts).
 */
import { ENVIRONMENT_META } from '@spawnpoint/contracts';

/** Whether errors show their details, from the served page's meta tag (`content`, or null when absent). */
export function detailsShownIn(environment: string | null, devServer: boolean): boolean {
  // Vite's dev server serves the pages itself (no meta tag): that is development by definition.
  if (devServer) return true;
  // A page not served by the API (no tag) counts as production: details are only ever shown on purpose.
  return environment !== null && environment !== 'production';
}

export function showsErrorDetails(): boolean {
  const tag = typeof document === 'undefined' ? null : document.querySelector(`meta[name="${ENVIRONMENT_META}"]`);
  return detailsShownIn(tag?.getAttribute('content') ?? null, import.meta.env.DEV);
}
