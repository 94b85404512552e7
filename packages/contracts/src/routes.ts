/**
 * The route table as data (docs/product.md, Pages and routes). The web app builds its router from it, the
 * API uses it to decide between the SPA page (200) and the 404 page, and the prerender list comes from it.
 */
import { SERVER_NAME_PATTERN } from './constants.ts';
export type RouteAccess = 'public' | 'authenticated' | 'unauthenticated';
export type RouteLayout = 'default' | 'auth' | 'dashboard-account' | 'fullscreen';

export interface RouteDefinition {
  name: string;
  /** React Router pattern (`:param` segments). */
  path: string;
  access: RouteAccess;
  layout: RouteLayout;
  /**
   * Rendered to HTML at build time (public marketing pages). `'content'`: one page per content file (blog
   * posts and pages), all prerendered; any other path of the route does not exist (HTTP 404).
   */
  prerender: boolean | 'content';
  title: string;
  /**
   * What each `:param` may be. A path whose parameter fails is no page of this route (HTTP 404, the 404
   * screen): `/server-list/<any text>` would otherwise put a stranger's words in the page's heading.
   */
  params?: Record<string, RegExp>;
}

export const routeTable = [
  { name: 'index', path: '/', access: 'public', layout: 'default', prerender: true, title: 'Free Minecraft server hosting' },
  { name: 'login', path: '/login', access: 'unauthenticated', layout: 'auth', prerender: false, title: 'Sign in' },
  { name: 'register', path: '/register', access: 'unauthenticated', layout: 'auth', prerender: false, title: 'Create an account' },
  {
    name: 'password-recovery',
    path: '/password-recovery',
    access: 'unauthenticated',
    layout: 'auth',
    prerender: false,
    title: 'Recover your password',
  },
  { name: 'pricing', path: '/pricing', access: 'public', layout: 'default', prerender: true, title: 'Pricing' },
  { name: 'affiliate', path: '/affiliate', access: 'public', layout: 'default', prerender: true, title: 'Affiliate programme' },
  { name: 'blog', path: '/blog', access: 'public', layout: 'default', prerender: true, title: 'Blog' },
  { name: 'blog-slug', path: '/blog/:slug', access: 'public', layout: 'default', prerender: 'content', title: 'Blog' },
  {
    name: 'blog-page-current',
    path: '/blog/page/:current',
    access: 'public',
    layout: 'default',
    prerender: 'content',
    title: 'Blog',
  },
  { name: 'server-list', path: '/server-list', access: 'public', layout: 'default', prerender: true, title: 'Server list' },
  {
    name: 'server-list-name',
    path: '/server-list/:name',
    access: 'public',
    layout: 'default',
    prerender: false,
    title: 'Server',
    params: { name: SERVER_NAME_PATTERN },
  },
  { name: 'account', path: '/account', access: 'authenticated', layout: 'dashboard-account', prerender: false, title: 'Account' },
  {
    name: 'account-security',
    path: '/account/security',
    access: 'authenticated',
    layout: 'dashboard-account',
    prerender: false,
    title: 'Security',
  },
  {
    name: 'account-billing',
    path: '/account/billing',
    access: 'authenticated',
    layout: 'dashboard-account',
    prerender: false,
    title: 'Balance and billing',
  },
  {
    name: 'account-receipt',
    path: '/account/receipts/:entryId',
    access: 'authenticated',
    layout: 'dashboard-account',
    prerender: false,
    title: 'Receipt',
  },
  {
    name: 'checkout-sandbox',
    path: '/checkout/sandbox/:paymentId',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Sandbox checkout',
  },
  { name: 'servers', path: '/servers', access: 'authenticated', layout: 'default', prerender: false, title: 'Servers' },
  {
    name: 'servers-create',
    path: '/servers/create',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Create a server',
  },
  { name: 'servers-id', path: '/servers/:id', access: 'authenticated', layout: 'default', prerender: false, title: 'Server' },
  { name: 'servers-id-shop', path: '/servers/:id/shop', access: 'authenticated', layout: 'default', prerender: false, title: 'Shop' },
  { name: 'servers-id-files', path: '/servers/:id/files', access: 'authenticated', layout: 'default', prerender: false, title: 'Files' },
  {
    name: 'servers-id-backups',
    path: '/servers/:id/backups',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Backups',
  },
  {
    name: 'servers-id-console',
    path: '/servers/:id/console',
    access: 'authenticated',
    layout: 'fullscreen',
    prerender: false,
    title: 'Console',
  },
  {
    name: 'servers-id-players',
    path: '/servers/:id/players',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Players',
  },
  {
    name: 'servers-id-plugins',
    path: '/servers/:id/plugins',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Plugins',
  },
  {
    name: 'servers-id-upgrade',
    path: '/servers/:id/upgrade',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Upgrade',
  },
  {
    name: 'servers-id-subusers',
    path: '/servers/:id/subusers',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Members',
  },
  {
    name: 'servers-id-appearance',
    path: '/servers/:id/appearance',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Appearance',
  },
  {
    name: 'servers-id-activity',
    path: '/servers/:id/activity',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Activity',
  },
  {
    name: 'servers-id-schedules',
    path: '/servers/:id/schedules',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Schedules',
  },
  {
    name: 'servers-id-properties',
    path: '/servers/:id/properties',
    access: 'authenticated',
    layout: 'default',
    prerender: false,
    title: 'Properties',
  },
  { name: 'cookie-policy', path: '/cookie-policy', access: 'public', layout: 'default', prerender: true, title: 'Cookie policy' },
  { name: 'privacy-policy', path: '/privacy-policy', access: 'public', layout: 'default', prerender: true, title: 'Privacy policy' },
  { name: 'terms-of-service', path: '/terms-of-service', access: 'public', layout: 'default', prerender: true, title: 'Terms of service' },
  {
    name: 'giveaway-10-minecraft-accounts',
    path: '/giveaway/10-minecraft-accounts',
    access: 'public',
    layout: 'default',
    prerender: true,
    title: 'Giveaway: 10 Minecraft accounts',
  },
  {
    name: 'tools-nether-portal-calculator',
    path: '/tools/nether-portal-calculator',
    access: 'public',
    layout: 'default',
    prerender: true,
    title: 'Nether portal calculator',
  },
] as const satisfies readonly RouteDefinition[];

export type RouteName = (typeof routeTable)[number]['name'];

/** Static segments win over parameters, so `/servers/create` is never taken for `/servers/:id`. */
export function matchRoute(pathname: string): RouteDefinition | null {
  const parts = splitPath(pathname);
  if (parts === null) return null;
  let best: { route: RouteDefinition; score: number } | null = null;
  for (const route of routeTable as readonly RouteDefinition[]) {
    const pattern = splitPath(route.path) ?? [];
    if (pattern.length !== parts.length) continue;
    let score = 0;
    let ok = true;
    for (let i = 0; i < pattern.length; i++) {
      const seg = pattern[i] as string;
      if (seg.startsWith(':')) {
        const rule = route.params?.[seg.slice(1)];
        if (rule && !rule.test(parts[i] as string)) ok = false;
        if (!ok) break;
        continue;
      }
      if (seg !== parts[i]) {
        ok = false;
        break;
      }
      score++;
    }
    if (ok && (best === null || score > best.score)) best = { route, score };
  }
  return best?.route ?? null;
}

function splitPath(pathname: string): string[] | null {
  if (!pathname.startsWith('/')) return null;
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const parts = trimmed.split('/').slice(1);
  if (parts.length === 1 && parts[0] === '') return [];
  if (parts.some((p) => p === '')) return null;
  return parts;
}

/** Any path starting with /support leaves the app for the external help site. */
export function isSupportPath(pathname: string): boolean {
  return pathname.startsWith('/support');
}

/** Paths prerendered as they are; the build adds the pages of `'content'` routes from the content files. */
export const prerenderPaths = (routeTable as readonly RouteDefinition[]).filter((r) => r.prerender === true).map((r) => r.path);
