import { isSupportPath, routeTable, type RouteAccess, type RouteDefinition } from '@spawnpoint/contracts';

export type NavigationDecision =
  { type: 'render' } | { type: 'wait' } | { type: 'redirect'; to: string } | { type: 'external'; url: string };

export interface NavigationInput {
  pathname: string;
  search: string;
  routeId: string | undefined;
  platform: 'web' | 'app';
  supportUrl: string;
  routeRules: Record<string, string>;
  initialized: boolean;
  signedIn: boolean;
  /** Signed out on purpose a moment ago: a page that needs a session goes home instead of to sign-in. */
  leftOnPurpose?: boolean;
}

const byName = new Map<string, RouteDefinition>((routeTable as readonly RouteDefinition[]).map((r) => [r.name, r]));

export function routeByName(name: string | undefined): RouteDefinition | undefined {
  return name ? byName.get(name) : undefined;
}

/** Where a signed-in user lands; a `redirect` parameter is honoured only for our own paths. */
export function afterSignInPath(search: string): string {
  const target = new URLSearchParams(search).get('redirect');
  if (target && target.startsWith('/') && !target.startsWith('//') && !target.startsWith('/\\')) return target;
  return '/servers';
}

type NamedCheck = (input: NavigationInput) => NavigationDecision;

const namedChecks: Record<RouteAccess, NamedCheck> = {
  authenticated: (input) => {
    if (!input.initialized) return { type: 'wait' };
    if (input.signedIn) return { type: 'render' };
    if (input.leftOnPurpose) return { type: 'redirect', to: '/' };
    const back = input.pathname + input.search;
    return { type: 'redirect', to: `/login?redirect=${encodeURIComponent(back)}` };
  },
  unauthenticated: (input) =>
    input.initialized && input.signedIn ? { type: 'redirect', to: afterSignInPath(input.search) } : { type: 'render' },
  public: (input) =>
    input.pathname === '/' && input.initialized && input.signedIn ? { type: 'redirect', to: '/servers' } : { type: 'render' },
};

/** Navigation: global checks first, then the route's named check. */
export function decideNavigation(input: NavigationInput): NavigationDecision {
  if (input.platform === 'app' && input.pathname === '/') return { type: 'redirect', to: '/servers' };
  if (isSupportPath(input.pathname)) return { type: 'external', url: input.supportUrl };
  const rule = input.routeRules[input.pathname];
  if (rule) return /^[a-z][a-z0-9+.-]*:/i.test(rule) ? { type: 'external', url: rule } : { type: 'redirect', to: rule };
  // The catch-all 404 route has no entry in the table and is public.
  const route = routeByName(input.routeId);
  const access: RouteAccess = route?.access ?? 'public';
  const check = namedChecks[access];
  if (!check) throw new Error(`Unknown route check "${String(access)}"`);
  return check(input);
}
