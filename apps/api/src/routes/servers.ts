import {
  commandRequest,
  createServerRequest,
  isRestrictedName,
  nameAvailabilityQuery,
  powerAction,
  serverIdParams,
  serverAppearanceRequest,
  serverName,
  softwareCatalogue,
} from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { requireSession, type AppContext } from '../context.ts';
import { servers } from '../db/schema.ts';
import { ApiError, ok, parse } from '../http/errors.ts';
import { verificationMail } from '../mail/templates.ts';
import { issueEmailToken } from '../auth/email-tokens.ts';
import { serverCreator } from '../servers/server-creator.ts';
import { specOf } from '../servers/power.ts';

export function serverRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { db } = ctx.database;
  const { directory, hub, nodes, power } = ctx.game;

  app.get('/v1/server/software', async () =>
    ok(softwareCatalogue.map((s) => ({ id: s.id, name: s.name, versions: [...s.versions], available: s.runtime === 'flying-squid' }))),
  );

  app.get('/v1/server/name-available', async (request) => {
    await requireSession(ctx, request);
    const { name } = parse(nameAvailabilityQuery, request.query);
    const parsed = serverName.safeParse(name);
    if (!parsed.success) return ok({ name, available: false, reason: parsed.error.issues[0]?.message });
    if (isRestrictedName(parsed.data))
      return ok({ name: parsed.data, available: false, reason: 'This name is not allowed. Please choose another.' });
    const [taken] = await db.select({ id: servers.id }).from(servers).where(eq(servers.name, parsed.data)).limit(1);
    return ok(
      taken ? { name: parsed.data, available: false, reason: 'This name is already in use.' } : { name: parsed.data, available: true },
    );
  });

  app.post('/v1/server/create', async (request) => {
    const session = await requireSession(ctx, request);
    const body = parse(createServerRequest, request.body);
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
    const row = await serverCreator(db, nodes, hub, session.user.id, body);
    hub.place({ serverId: row.id, ownerId: row.ownerId, nodeId: row.nodeId });
    directory.invalidate(session.user.id);
    // Prepare the folder now so the first start is quick; a failure here is retried at start.
    void nodes
      .install(row.nodeId, specOf(row))
      .then((max) => hub.recordMaxPlayers(row.id, max))
      .catch(() => undefined);
    return ok(directory.details(row));
  });

  app.get('/v1/server/:serverId', async (request) => {
    const session = await requireSession(ctx, request);
    const { serverId } = parse(serverIdParams, request.params);
    return ok(directory.details(await directory.authorize(session.user.id, serverId, 'console.read')));
  });

  app.post('/v1/server/:serverId/appearance', async (request) => {
    const session = await requireSession(ctx, request);
    const { serverId } = parse(serverIdParams, request.params);
    const row = await directory.authorize(session.user.id, serverId, 'appearance.update');
    const { publicListing } = parse(serverAppearanceRequest, request.body);
    return ok(directory.details(await directory.setPublicListing(row, publicListing)));
  });

  app.post('/v1/server/:serverId/:action', async (request) => {
    const session = await requireSession(ctx, request);
    const { serverId } = parse(serverIdParams, request.params);
    const { action: raw } = request.params as { action: string };
    if (raw === 'command') {
      const row = await directory.authorize(session.user.id, serverId, 'console.command');
      const { command } = parse(commandRequest, request.body);
      if (hub.stateOf(row.id) !== 'online' && hub.stateOf(row.id) !== 'starting') {
        throw new ApiError('INVALID_STATE', undefined, 'The server is not running. Start it first.');
      }
      await nodes.command(row.nodeId, row.id, command);
      return ok(null);
    }
    const action = powerAction.safeParse(raw);
    if (!action.success) throw new ApiError('NOT_FOUND');
    const row = await directory.authorize(session.user.id, serverId, action.data === 'start' ? 'power.start' : 'power.stop');
    await power.run(row, action.data);
    return ok({ serverId: row.id, state: hub.stateOf(row.id) });
  });

  app.delete('/v1/server/:serverId', async (request) => {
    const session = await requireSession(ctx, request);
    const { serverId } = parse(serverIdParams, request.params);
    const row = await directory.authorize(session.user.id, serverId, 'server.delete');
    // Files go first: a server whose files cannot be removed stays listed rather than leaking them.
    if (nodes.isConnected(row.nodeId)) await nodes.remove(row.nodeId, row.id);
    else
      throw new ApiError(
        'NODE_UNAVAILABLE',
        undefined,
        'The machine that runs this server cannot be reached right now, so its files cannot be removed. Please try again in a minute.',
      );
    await db.delete(servers).where(eq(servers.id, row.id));
    hub.forget(row.id);
    directory.invalidate(session.user.id);
    return ok(null);
  });
}
