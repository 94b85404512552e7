import { accountRoutes } from './account.ts';
import { appearanceRoutes } from './appearance.ts';
import { authRoutes } from './auth.ts';
import { backupRoutes } from './backups.ts';
import { billingRoutes } from './billing.ts';
import { fileRoutes } from './files.ts';
import { invitationRoutes } from './invitations.ts';
import { memberRoutes } from './members.ts';
import { miscRoutes } from './misc.ts';
import { openApiRoutes } from '../openapi.ts';
import { operatorRoutes } from './operator.ts';
import { playerRoutes } from './players.ts';
import { pluginRoutes } from './plugins.ts';
import { publicSiteRoutes } from './public-site.ts';
import { router } from '../http/route.ts';
import { scheduleRoutes } from './schedules.ts';
import { serverRoutes } from './servers.ts';
import { sessionRoutes } from './sessions.ts';
import { twoFactorRoutes } from './two-factor.ts';
import { userRoutes } from './user.ts';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import { metricsRoutes } from '../metrics.ts';

/** Every route of the API, each from its entry in the endpoint table (contracts), through the one router. */
export function registerRoutes(app: FastifyInstance, ctx: AppContext, registry: Registry): void {
  const route = router(app, ctx);
  authRoutes(route, ctx);
  userRoutes(route, ctx);
  miscRoutes(app, route, ctx);
  serverRoutes(route, ctx);
  memberRoutes(route, ctx);
  invitationRoutes(route, ctx);
  accountRoutes(route, ctx);
  twoFactorRoutes(route, ctx);
  sessionRoutes(route, ctx);
  operatorRoutes(route, ctx);
  fileRoutes(route, ctx);
  appearanceRoutes(route, ctx);
  pluginRoutes(route, ctx);
  backupRoutes(route, ctx);
  scheduleRoutes(route, ctx);
  playerRoutes(route);
  publicSiteRoutes(route, ctx);
  billingRoutes(route, ctx);
  openApiRoutes(route, ctx.config.publicUrl);
  metricsRoutes(route, registry);
}
