import type { FastifyBaseLogger } from 'fastify';
import { Payments, providerFor } from './billing/payments.ts';
import { Shop } from './billing/shop.ts';
import { Subscriptions } from './billing/subscriptions.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Db } from './db/db-type.ts';

/** What money acts on among the game services: a plan's limits, the lists, the node's spec. */
type Followers = Pick<AppContext['game'], 'freeTier' | 'directory'> & { nodeSpecs: { limitsChanged(serverId: string): Promise<unknown> } };

/**
 * Payments, subscriptions and the shop, wired to what follows a plan bought or lapsed: the account's limits
 * (the free tier), the cached lists, and the node's spec of the server (disk, slots).
 */
export function billingServices(config: Config, db: Db, log: FastifyBaseLogger, game: Followers): AppContext['billing'] {
  const subscriptions = new Subscriptions(db, log, config.AFFILIATE_COMMISSION_PERCENT);
  const limitsChanged = (serverId: string) =>
    void game.nodeSpecs
      .limitsChanged(serverId)
      .catch((err: unknown) => log.warn({ err, serverId }, 'could not send the node the new limits'));
  subscriptions.onPlanChanged(({ serverId, ownerId, planId }) => {
    game.freeTier.planChanged(serverId, ownerId, planId);
    game.directory.invalidate(ownerId);
    limitsChanged(serverId);
  });
  return {
    payments: new Payments(db, providerFor(config), log),
    subscriptions,
    shop: new Shop(db, config.AFFILIATE_COMMISSION_PERCENT),
    limitsChanged,
  };
}
