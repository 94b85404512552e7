import type { MetaDescriptor } from 'react-router';
import { routeByName } from './navigation.ts';

export const SITE_NAME = 'Spawnpoint';
/** Canonical origin of the public site (build-time PUBLIC_URL; the local default otherwise). */
export const SITE_ORIGIN = __PUBLIC_SETTINGS__.siteUrl;

/** Title, description, canonical URL and Open Graph tags of a page. */
export function pageMeta(routeName: string, description: string, options: { path?: string; title?: string } = {}): MetaDescriptor[] {
  const route = routeByName(routeName);
  const base = options.title ?? route?.title ?? SITE_NAME;
  const title = routeName === 'index' ? `${SITE_NAME}: ${base}` : `${base} · ${SITE_NAME}`;
  const path = options.path ?? (route && !route.path.includes(':') ? route.path : undefined);
  const tags: MetaDescriptor[] = [
    { title },
    { name: 'description', content: description },
    { property: 'og:title', content: title },
    { property: 'og:description', content: description },
    { property: 'og:type', content: routeName === 'blog-slug' ? 'article' : 'website' },
    { property: 'og:site_name', content: SITE_NAME },
    { name: 'twitter:card', content: 'summary' },
  ];
  if (path) {
    tags.push(
      { tagName: 'link', rel: 'canonical', href: `${SITE_ORIGIN}${path}` },
      { property: 'og:url', content: `${SITE_ORIGIN}${path}` },
    );
  }
  return tags;
}
