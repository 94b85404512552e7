import { endpoints, isJavaSoftware, isRestrictedName, serverName, type PowerAction } from '@spawnpoint/contracts';
import { and, eq, isNull } from 'drizzle-orm';
import type { Given } from '../context.ts';
import { servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { verificationMail } from '../mail/templates.ts';
import { issueEmailToken } from '../auth/email-tokens.ts';
import { serverCreator } from '../servers/server-creator.ts';
import type { ServerRow } from '../db/rows.ts';
import { specOf } from '../servers/server-spec.ts';
import { ServerRemover, type RemoverServices } from '../servers/server-remover.ts';
import { softwareOffer } from '../servers/software-offer.ts';
import { versionChanger } from '../servers/version-changer.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<
  'background' | 'config' | 'database' | 'limit' | 'mailer',
  'directory' | 'hub' | 'nodes' | 'power' | 'proxies' | 'freeTier' | 'backups' | 'placement' | RemoverServices,
  'subscriptions'
>;

/** How long a create waits for the node to prepare the new folder before answering (it usually takes ms). */
const CREATE_INSTALL_WAIT_MS = 5_000;

/** The routes of servers themselves: their life, their power and their settings. */
export function serverRoutes(route: Route, ctx: Services): void {
  serverLifeRoutes(route, ctx);
  serverPowerRoutes(route, ctx);
  serverSettingRoutes(route, ctx);
}

/** The software offer, a name's availability, create, read and delete. */
function serverLifeRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const { directory, hub, nodes, proxies, freeTier } = ctx.game;

  // Java software in the releases (and apart, the previews) the connected nodes read from its vendor and can run.
  route(endpoints.software, async () =>
    (await softwareOffer(nodes)).map(({ id, name, versions, available, previews, javaDownloads }) => ({
      id,
      name,
      versions,
      available,
      previews,
      javaDownloads,
    })),
  );

  route(endpoints.nameAvailable, async ({ query: { name } }) => {
    const parsed = serverName.safeParse(name);
    if (!parsed.success) return { name, available: false, reason: parsed.error.issues[0]?.message };
    if (isRestrictedName(parsed.data))
      return { name: parsed.data, available: false, reason: 'This name is not allowed. Please choose another.' };
    const [taken] = await db.select({ id: servers.id }).from(servers).where(eq(servers.name, parsed.data)).limit(1);
    return taken ? { name: parsed.data, available: false, reason: 'This name is already in use.' } : { name: parsed.data, available: true };
  });

  route(
    endpoints.serverCreate,
    async ({ request, session, body }) => {
      if (!session.user.emailVerifiedAt) {
        // The catalogue message promises a mail, so send one (within the resend budget).
        const allowed = await ctx.limit('resendVerificationPerAccount', request, session.user.id).then(
          () => true,
          () => false,
        );
        if (allowed) {
          const user = session.user;
          ctx.background(async () => {
            const token = await issueEmailToken(db, user.id, 'verify_email');
            await ctx.mailer.send({ to: user.emailAddress, ...verificationMail(ctx.config.publicUrl, token) });
          });
        }
        throw new ApiError('EMAIL_ADDRESS_REQUIRED');
      }
      const row = await serverCreator(db, nodes, ctx.game.placement, session.user.id, body);
      hub.place({ serverId: row.id, ownerId: row.ownerId, nodeId: row.nodeId });
      proxies.upsert(row);
      directory.invalidate(session.user.id);
      // The folder is prepared before the answer (a few files), so the pages the owner opens next (Files,
      // Plugins) find the server on its node; a slow or failed install answers anyway and is retried at start.
      const installed = nodes
        .install(row.nodeId, specOf(row))
        .then((max) => hub.recordMaxPlayers(row.id, max))
        .catch(() => undefined);
      await Promise.race([installed, new Promise((resolve) => setTimeout(resolve, CREATE_INSTALL_WAIT_MS).unref())]);
      return directory.details(row);
    },
    { gamePlane: true },
  );

  route(endpoints.server, async ({ server, access }) => {
    await freeTier.prepare(server.ownerId);
    return directory.details(server, access);
  });

  route(endpoints.serverDelete, async ({ server, session }) => {
    // A plan that renews is money the owner expects to keep paying: it is turned off first, on purpose.
    await ctx.billing.subscriptions.refuseIfRenewing({ serverId: server.id });
    const remover = new ServerRemover(ctx.game);
    await remover.removeFiles([server.id], 'this server');
    await db.delete(servers).where(eq(servers.id, server.id));
    remover.forget([server.id]);
    directory.invalidate(session.user.id);
    return null;
  });
}

/** Start, stop, restart, kill, and a console command. */
function serverPowerRoutes(route: Route, ctx: Services): void {
  const { hub, power } = ctx.game;

  // A player joining a stopped server through the join proxy starts it through this same power.run
  // (proxy-gateway.ts), so a rule of starting belongs in PowerDispatcher, not here.
  const powerAction =
    (action: PowerAction) =>
    async ({ server }: { server: Parameters<typeof power.run>[0] }) => {
      await power.run(server, action);
      return { serverId: server.id, state: hub.stateOf(server.id) };
    };
  const logged = (action: 'server.start' | 'server.stop' | 'server.restart' | 'server.kill') => ({
    activity: ({ server }: { server: ServerRow }) => ({ action, target: server.name }),
  });
  route(endpoints.serverStart, powerAction('start'), logged('server.start'));
  route(endpoints.serverStop, powerAction('stop'), logged('server.stop'));
  route(endpoints.serverRestart, powerAction('restart'), logged('server.restart'));
  route(endpoints.serverKill, powerAction('kill'), logged('server.kill'));

  route(
    endpoints.serverCommand,
    async ({ nodes, server, body }) => {
      if (hub.stateOf(server.id) !== 'online' && hub.stateOf(server.id) !== 'starting') {
        throw new ApiError('INVALID_STATE', undefined, 'The server is not running. Start it first.');
      }
      await nodes.command(server.nodeId, server.id, body.command);
      return null;
    },
    { activity: ({ body }) => ({ action: 'console.command', target: body.command }) },
  );
}

/** The EULA, the Minecraft version, PROXY protocol, join-to-start and the public listing. */
function serverSettingRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const { directory, nodes, proxies } = ctx.game;

  route(endpoints.serverEula, async ({ nodes, server, access, recordActivity }) => {
    if (!isJavaSoftware(server.software)) throw new ApiError('INVALID_STATE', undefined, 'Only Java servers need the Minecraft EULA.');
    // Accepted once: the first acceptance keeps its time, and only it is logged.
    const row = await db.transaction(async (tx) => {
      const [accepted] = await tx
        .update(servers)
        .set({ eulaAcceptedAt: new Date() })
        .where(and(eq(servers.id, server.id), isNull(servers.eulaAcceptedAt)))
        .returning();
      if (accepted) await recordActivity(tx, { action: 'server.eula', target: server.name });
      return accepted ?? (await tx.select().from(servers).where(eq(servers.id, server.id)).limit(1))[0];
    });
    if (!row) throw new ApiError('NOT_FOUND');
    directory.invalidate(row.ownerId);
    // The node writes eula.txt from the spec it holds: it gets the new one now.
    await nodes.install(row.nodeId, specOf(row)).catch(() => undefined);
    return directory.details(row, access);
  });

  // A multi-step write (backup, then the new version): versionChanger. The proxies' routes and the lists
  // show the new version at once; the node installs it at the next start.
  route(endpoints.serverVersion, async ({ server, access, body, recordActivity }) => {
    const row = await versionChanger(
      { db, nodes, backups: ctx.game.backups },
      server,
      body,
      access.permissions.includes('backups.delete'),
      (tx, from, to) => recordActivity(tx, { action: 'server.version', target: `${from} → ${to}` }),
    );
    directory.invalidate(row.ownerId);
    proxies.upsert(row);
    return directory.details(row, access);
  });

  route(
    endpoints.serverProxyProtocol,
    async ({ server, access, body }) => {
      if (!isJavaSoftware(server.software))
        throw new ApiError('INVALID_STATE', undefined, 'The built-in runtime does not read PROXY protocol headers; only Java servers can.');
      const [row] = await db.update(servers).set({ proxyProtocol: body.enabled }).where(eq(servers.id, server.id)).returning();
      if (!row) throw new ApiError('NOT_FOUND');
      directory.invalidate(row.ownerId);
      // The proxies get the route with the flag at once; connections from now on carry the header.
      proxies.upsert(row);
      return directory.details(row, access);
    },
    { activity: ({ body }) => ({ action: 'properties.update', target: `proxy-protocol=${body.enabled}` }) },
  );

  route(
    endpoints.serverJoinStart,
    async ({ server, access, body }) => {
      const [row] = await db.update(servers).set({ joinStart: body.joinStart }).where(eq(servers.id, server.id)).returning();
      if (!row) throw new ApiError('NOT_FOUND');
      directory.invalidate(row.ownerId);
      // The proxies get the route with the setting at once (their status answer says what joining does).
      proxies.upsert(row);
      return directory.details(row, access);
    },
    { activity: ({ body }) => ({ action: 'properties.update', target: `join-start=${body.joinStart}` }) },
  );

  route(
    endpoints.serverAppearance,
    async ({ server, access, body }) => directory.details(await directory.setPublicListing(server, body.publicListing), access),
    { activity: ({ body }) => ({ action: 'listing.update', target: body.publicListing ? 'listed publicly' : 'not listed' }) },
  );
}
