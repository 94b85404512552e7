import { layout, route, type RouteConfig } from '@react-router/dev/routes';
import { routeTable, type RouteLayout, type RouteName } from '@spawnpoint/contracts';

/** Which module renders each named route of the table; everything else about a route is in contracts. */
const modules: Record<RouteName, string> = {
  index: 'routes/home.tsx',
  login: 'routes/login.tsx',
  register: 'routes/register.tsx',
  'password-recovery': 'routes/password-recovery.tsx',
  pricing: 'routes/pricing.tsx',
  affiliate: 'routes/affiliate.tsx',
  blog: 'routes/blog.tsx',
  'blog-slug': 'routes/blog-post.tsx',
  'blog-page-current': 'routes/blog.tsx',
  'server-list': 'routes/server-list.tsx',
  'server-list-name': 'routes/public-server.tsx',
  account: 'routes/account.tsx',
  'account-security': 'routes/account-security.tsx',
  'account-billing': 'routes/account-billing.tsx',
  'account-receipt': 'routes/account-receipt.tsx',
  'checkout-sandbox': 'routes/checkout-sandbox.tsx',
  servers: 'routes/servers.tsx',
  'servers-create': 'routes/servers-create.tsx',
  'servers-id': 'routes/server-overview.tsx',
  'servers-id-shop': 'routes/server-shop.tsx',
  'servers-id-files': 'routes/server-files.tsx',
  'servers-id-backups': 'routes/server-backups.tsx',
  'servers-id-console': 'routes/server-console.tsx',
  'servers-id-players': 'routes/server-players.tsx',
  'servers-id-plugins': 'routes/server-plugins.tsx',
  'servers-id-upgrade': 'routes/server-upgrade.tsx',
  'servers-id-subusers': 'routes/server-subusers.tsx',
  'servers-id-appearance': 'routes/server-appearance.tsx',
  'servers-id-properties': 'routes/server-properties.tsx',
  'servers-id-activity': 'routes/server-activity.tsx',
  'servers-id-schedules': 'routes/server-schedules.tsx',
  'cookie-policy': 'routes/legal.tsx',
  'privacy-policy': 'routes/legal.tsx',
  'terms-of-service': 'routes/legal.tsx',
  'giveaway-10-minecraft-accounts': 'routes/giveaway.tsx',
  'tools-nether-portal-calculator': 'routes/nether-calculator.tsx',
};

const layouts: Record<RouteLayout, string> = {
  default: 'layouts/default.tsx',
  auth: 'layouts/auth.tsx',
  'dashboard-account': 'layouts/dashboard-account.tsx',
  fullscreen: 'layouts/fullscreen.tsx',
};

function routesOf(name: RouteLayout) {
  return routeTable.filter((r) => r.layout === name).map((r) => route(r.path, modules[r.name], { id: r.name }));
}

export default [
  layout(layouts.default, { id: 'layout-default' }, [...routesOf('default'), route('*', 'routes/not-found.tsx', { id: 'not-found' })]),
  layout(layouts.auth, { id: 'layout-auth' }, routesOf('auth')),
  layout(layouts['dashboard-account'], { id: 'layout-dashboard-account' }, routesOf('dashboard-account')),
  layout(layouts.fullscreen, { id: 'layout-fullscreen' }, routesOf('fullscreen')),
] satisfies RouteConfig;
