import {
  agentEndpoints,
  endpoints,
  faviconOf,
  SERVER_ICON_FILE,
  SERVER_ICON_UPLOAD_MAX_BYTES,
  shopItem,
  shopItems,
  toSectionCodes,
  type AppearanceResult,
  type ShopIconArt,
} from '@spawnpoint/contracts';
import type { Given } from '../context.ts';
import type { NodeRegistry } from '../nodes.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { shopIconPng } from '../billing/shop.ts';
import { serverIconFrom } from '../servers/icon-image.ts';
import { readServerIcon } from '../servers/server-icon.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'database', 'directory', 'shop'>;

/**
 * The Appearance page: the MOTD (server.properties `motd`, saved with `§` codes that the agent writes in
 * Java's `\u00A7` escaping) and the icon (`server-icon.png` at the top of the server folder). Both are
 * written through the node's sandbox and apply at the next start; the built-in runtime's launcher sends
 * them in its status answer, Java servers read them natively.
 */
/** A shop icon as the data URL the server's icon is read back as (made once per icon: it never changes). */
const shopIconUrls = new Map<ShopIconArt, Promise<string>>();
function shopIconUrl(art: ShopIconArt): Promise<string> {
  let url = shopIconUrls.get(art);
  if (!url) shopIconUrls.set(art, (url = shopIconPng(art).then(faviconOf)));
  return url;
}

export function appearanceRoutes(route: Route, ctx: Services): void {
  type Server = { id: string; nodeId: string; ownerId: string };

  const current = async (nodes: NodeRegistry, server: Server): Promise<AppearanceResult> => {
    const [properties, icon, owned] = await Promise.all([
      nodes.call(server.nodeId, agentEndpoints.propertiesRead, { params: { serverId: server.id } }),
      readServerIcon(nodes, server),
      ctx.billing.shop.iconsOf(ctx.database.db, server.ownerId),
    ]);
    // The public list and the join proxies (while the server sleeps) show a kept copy, so neither reaches a node.
    await ctx.game.directory.appearance.keep(server.id, { motd: properties.motd ?? '', icon });
    const shopIcons = await Promise.all(
      shopItems.map(async (i) =>
        i.kind === 'icon'
          ? [{ itemId: i.id, name: i.name, owned: owned.has(i.id), inUse: icon !== null && icon === (await shopIconUrl(i.art)) }]
          : [],
      ),
    ).then((lists) => lists.flat());
    return { motd: properties.motd ?? '', icon, shopIcons };
  };

  const writeIcon = (nodes: NodeRegistry, server: Server, bytes: Buffer) =>
    nodes.send(
      server.nodeId,
      agentEndpoints.fileWrite,
      { params: { serverId: server.id }, query: { path: `/${SERVER_ICON_FILE}`, overwrite: 'true', size: bytes.length } },
      bytes,
    );

  // Each change of the server's public face is logged (who, and what: the MOTD's text, which icon).
  route(
    endpoints.appearanceShopIcon,
    async ({ nodes, server, body }) => {
      const item = shopItem(body.itemId);
      if (item?.kind !== 'icon') throw new ApiError('INVALID_INPUT', { itemId: 'There is no such icon in the shop.' });
      if (!(await ctx.billing.shop.iconsOf(ctx.database.db, server.ownerId)).has(item.id))
        throw new ApiError('INVALID_STATE', undefined, `The ${item.name} icon is not unlocked: its owner buys it in the server's Shop.`);
      await writeIcon(nodes, server, await shopIconPng(item.art));
      return current(nodes, server);
    },
    { activity: ({ body }) => ({ action: 'appearance.update', target: `icon: ${shopItem(body.itemId)?.name ?? body.itemId}` }) },
  );

  route(endpoints.appearance, async ({ nodes, server }) => current(nodes, server));

  route(
    endpoints.appearanceUpdate,
    async ({ nodes, server, body }) => {
      // Codes typed with & are saved as the game reads them; the schema already refused unknown codes,
      // more than two lines or 59 visible characters on one, and restricted words.
      await nodes.call(server.nodeId, agentEndpoints.propertiesWrite, {
        params: { serverId: server.id },
        body: { values: { motd: toSectionCodes(body.motd) } },
      });
      return current(nodes, server);
    },
    { activity: ({ body }) => ({ action: 'appearance.update', target: `motd: ${body.motd.replace(/\n/g, ' / ')}` }) },
  );

  route(
    endpoints.appearanceIcon,
    async ({ nodes, server, body }) => {
      await writeIcon(nodes, server, await serverIconFrom(Buffer.from(body.image, 'base64')));
      return current(nodes, server);
    },
    { bodyLimit: 4 * SERVER_ICON_UPLOAD_MAX_BYTES, activity: () => ({ action: 'appearance.update', target: 'icon: uploaded' }) },
  );

  route(endpoints.appearanceIconDelete, async ({ nodes, server, recordActivity: record }) => {
    const removed = await nodes
      .call(server.nodeId, agentEndpoints.fileDelete, { params: { serverId: server.id }, body: { paths: [`/${SERVER_ICON_FILE}`] } })
      .then(
        () => true,
        (err: unknown) => {
          if (!(err instanceof ApiError && err.code === 'NOT_FOUND')) throw err;
          return false;
        },
      );
    // Logged only when there was an icon to remove.
    if (removed) await record(ctx.database.db, { action: 'appearance.update', target: 'icon: removed' });
    return current(nodes, server);
  });
}
