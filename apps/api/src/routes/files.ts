import type { Readable } from 'node:stream';
import {
  EDITABLE_MAX_BYTES,
  agentEndpoints,
  endpoints,
  findSoftware,
  javaOnlyProperties,
  toSectionCodes,
  type ServerPropertiesView,
} from '@spawnpoint/contracts';
import type { Given } from '../context.ts';
import type { NodeRegistry } from '../nodes.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { uploadToNode, withMultipartFile } from '../servers/node-upload.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<never, 'hub' | 'directory'>;

/** Files and server.properties of a server: the router checks the permission, then each route asks the agent. */
export function fileRoutes(route: Route, ctx: Services): void {
  // Files go between the browser and the node through whichever API process the browser reached: nothing
  // here touches the game plane, so a process mirroring it does not hand these to the holder (game-plane.ts).
  const here: Route = (endpoint, handler, options) => route(endpoint, handler, { gamePlane: false, ...options });
  fileReadRoutes(here);
  fileWriteRoutes(here);
  propertyRoutes(route, ctx);
}

/** Writes a file on the node through its sandbox, streamed. */
async function writeFile(
  nodes: NodeRegistry,
  server: { id: string; nodeId: string },
  path: string,
  body: Buffer | Readable,
  overwrite = true,
  declaredSize?: number,
): Promise<void> {
  const query = { path, overwrite: overwrite ? ('true' as const) : ('false' as const), size: declaredSize };
  await uploadToNode(nodes, server, agentEndpoints.fileWrite, { params: { serverId: server.id }, query }, body);
}

/** Listing, search, disk usage, a download link, and text for the editor. */
function fileReadRoutes(here: Route): void {
  here(endpoints.fileList, async ({ nodes, server, query: { path } }) =>
    nodes.call(server.nodeId, agentEndpoints.fileList, { params: { serverId: server.id }, query: { path } }),
  );

  here(endpoints.fileSearch, async ({ nodes, server, query }) =>
    nodes.call(server.nodeId, agentEndpoints.fileSearch, { params: { serverId: server.id }, query }),
  );

  here(endpoints.diskUsage, async ({ nodes, server }) =>
    nodes.call(server.nodeId, agentEndpoints.diskUsage, { params: { serverId: server.id } }),
  );

  // The bytes go from the node's disk to the browser: answered with a redirect to a link on the node that
  // works for 60 s and for this path of this server only, so links and <a download> work as they are.
  here(endpoints.fileDownload, async ({ nodes, reply, server, query: { path } }) => {
    const name = path.split('/').filter(Boolean).pop() ?? server.name;
    const link = await nodes.downloadLink(server.nodeId, { purpose: 'file-download', serverId: server.id, path, name });
    return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(link, 302);
  });

  // Text for the editor: refused beyond the size cap and for binary files, with a message saying why.
  here(endpoints.fileContent, async ({ nodes, server, query: { path } }) => {
    const download = await nodes.download(server.nodeId, agentEndpoints.fileDownload, { params: { serverId: server.id }, query: { path } });
    const length = Number(download.headers['content-length'] ?? 'NaN');
    if (!(length <= EDITABLE_MAX_BYTES) || !(download.headers['content-type'] ?? '').includes('octet-stream')) {
      download.body.destroy();
      throw new ApiError(
        'INVALID_INPUT',
        undefined,
        `Only text files up to ${EDITABLE_MAX_BYTES / 1024 / 1024} MB open in the editor. Download this one instead.`,
      );
    }
    const bytes = await nodes.collect(server.nodeId, download.body);
    if (bytes.includes(0)) throw new ApiError('INVALID_INPUT', undefined, 'This is not a text file. Download it instead.');
    return { path, content: bytes.toString('utf8') };
  });
}

/** Saves, uploads and the changes the file manager makes. */
function fileWriteRoutes(here: Route): void {
  here(
    endpoints.fileSave,
    async ({ nodes, server, body }) => {
      const bytes = Buffer.from(body.content, 'utf8');
      if (bytes.length > EDITABLE_MAX_BYTES)
        throw new ApiError('INVALID_INPUT', { content: 'The file is too large to save from the editor.' });
      await writeFile(nodes, server, body.path, bytes, body.overwrite);
      return null;
    },
    // The path only: the content is never logged. A save that may not replace a file is the "New file" one.
    {
      bodyLimit: EDITABLE_MAX_BYTES * 2 + 64 * 1024,
      activity: ({ body }) => ({ action: body.overwrite ? 'file.save' : 'file.create', target: body.path }),
    },
  );

  // One file per request (multipart), streamed to the node as it arrives: memory does not grow with size.
  here(
    endpoints.fileUpload,
    async ({ nodes, request, reply, server, query: { path, size, overwrite } }) => {
      await withMultipartFile(request, reply, (file) => writeFile(nodes, server, path, file, overwrite === 'true', size));
      return null;
    },
    { multipart: true, activity: ({ query }) => ({ action: 'file.upload', target: query.path }) },
  );

  // The dashboard's uploads: the browser sends the file straight to the node, which writes exactly this
  // size to this path through a link signed here after the permission check; a file that cannot fit is
  // refused now, before a byte is sent. The node reports the finished upload, which is logged then.
  here(endpoints.fileUploadLink, async ({ nodes, request, server, session, body: { path, size, overwrite } }) => {
    await nodes.call(server.nodeId, agentEndpoints.fileFits, { params: { serverId: server.id }, body: { path, size, overwrite } });
    return nodes.uploadLink(server.nodeId, { serverId: server.id, path, size, overwrite, actorId: session.user.id, ip: request.ip });
  });

  // The agent checks each path and answers in the same shape; these pass the request on as it came.
  // Each is logged with its paths once the node answered SUCCESS (a mkdir -p that made nothing is not).
  here(
    endpoints.fileMkdir,
    async ({ nodes, server, body }) => nodes.call(server.nodeId, agentEndpoints.fileMkdir, { params: { serverId: server.id }, body }),
    { activity: ({ body }, result) => (result?.created === 0 ? null : { action: 'file.mkdir', target: body.path }) },
  );
  here(
    endpoints.fileRename,
    async ({ nodes, server, body }) => nodes.call(server.nodeId, agentEndpoints.fileRename, { params: { serverId: server.id }, body }),
    { activity: ({ body }) => ({ action: 'file.rename', target: `${body.from} → ${body.to}` }) },
  );
  here(
    endpoints.fileDelete,
    async ({ nodes, server, body }) => nodes.call(server.nodeId, agentEndpoints.fileDelete, { params: { serverId: server.id }, body }),
    { activity: ({ body }) => ({ action: 'file.delete', target: body.paths.join(', ') }) },
  );
  here(
    endpoints.fileArchive,
    async ({ nodes, server, body }) => nodes.call(server.nodeId, agentEndpoints.fileArchive, { params: { serverId: server.id }, body }),
    { activity: ({ body }) => ({ action: 'file.archive', target: `${body.paths.join(', ')} → ${body.destination}` }) },
  );
  here(
    endpoints.fileExtract,
    async ({ nodes, server, body }) => nodes.call(server.nodeId, agentEndpoints.fileExtract, { params: { serverId: server.id }, body }),
    {
      activity: ({ body }, result) => ({
        action: 'file.extract',
        target: `${body.path} → ${result?.destination ?? body.destination ?? ''}`,
      }),
    },
  );
  here(
    endpoints.fileChmod,
    async ({ nodes, server, body }) => nodes.call(server.nodeId, agentEndpoints.fileChmod, { params: { serverId: server.id }, body }),
    { activity: ({ body }) => ({ action: 'file.chmod', target: `${body.path} (${body.mode.toString(8).padStart(3, '0')})` }) },
  );
}

/** server.properties through the typed form; values the form does not offer are kept as they are. */
function propertyRoutes(route: Route, ctx: Services): void {
  const { hub } = ctx.game;

  route(endpoints.properties, async ({ nodes, server }) => {
    const raw = await nodes.call(server.nodeId, agentEndpoints.propertiesRead, { params: { serverId: server.id } });
    return typedProperties(raw, server);
  });

  route(
    endpoints.propertiesUpdate,
    async ({ nodes, server, body }) => {
      if (body['max-players'] !== undefined && body['max-players'] > server.maxPlayers)
        throw new ApiError('INVALID_INPUT', { 'max-players': `Your plan allows at most ${server.maxPlayers} players` });
      // A field the server's runtime would not honour is refused rather than saved to do nothing.
      if (findSoftware(server.software)?.runtime === 'flying-squid') {
        const ignored = javaOnlyProperties.filter((key) => body[key] !== undefined);
        if (ignored.length)
          throw new ApiError(
            'INVALID_INPUT',
            Object.fromEntries(ignored.map((key) => [key, `The built-in runtime does not honour ${key}; only Java servers do.`])),
          );
      }
      // Codes typed with & are saved as the game reads them (§, written \u00A7 by the agent).
      const asText = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, k === 'motd' ? toSectionCodes(String(v)) : String(v)]));
      const raw = await nodes.call(server.nodeId, agentEndpoints.propertiesWrite, {
        params: { serverId: server.id },
        body: { values: asText },
      });
      const typed = typedProperties(raw, server);
      if (body.motd !== undefined) await ctx.game.directory.appearance.keep(server.id, { motd: raw.motd ?? '' });
      // A server that is not running will run with these slots; a running one keeps its own until restarted.
      if (hub.stateOf(server.id) === 'offline') hub.recordMaxPlayers(server.id, Math.min(typed['max-players'], server.maxPlayers));
      return typed;
    },
    // Nothing to save (an empty body, or keys the schema drops) is no change to log.
    { activity: ({ body }) => (Object.keys(body).length ? { action: 'properties.update', target: Object.keys(body).join(', ') } : null) },
  );
}

/**
 * The form's view of server.properties. Text values are the file's as they are (a tenant may have written
 * anything there; the page shows it and the form says what is wrong if it is edited); a number or choice
 * that is not one reads as the game's default, and the slots as the server runs with them: the file's,
 * never more than the plan's.
 */
function typedProperties(raw: Record<string, string>, server: { software: string; maxPlayers: number }): ServerPropertiesView {
  const num = (v: string | undefined, d: number) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : d);
  const pick = <T extends string>(v: string | undefined, allowed: readonly T[], d: T): T => (allowed.includes(v as T) ? (v as T) : d);
  const software = server.software;
  return {
    motd: raw.motd ?? '',
    'max-players': Math.min(server.maxPlayers, Math.max(1, num(raw['max-players'], server.maxPlayers))),
    gamemode: pick(raw.gamemode, ['survival', 'creative', 'adventure', 'spectator'] as const, 'survival'),
    difficulty: pick(raw.difficulty, ['peaceful', 'easy', 'normal', 'hard'] as const, 'easy'),
    'view-distance': Math.min(32, Math.max(2, num(raw['view-distance'], 10))),
    'level-seed': raw['level-seed'] ?? '',
    'level-type': pick(raw['level-type'], ['default', 'flat'] as const, 'default'),
    // Java's defaults when a key is missing: pvp on, whitelist off, 16 blocks, the nether allowed.
    pvp: raw.pvp !== 'false',
    'white-list': raw['white-list'] === 'true',
    ...(findSoftware(software)?.runtime === 'flying-squid'
      ? {}
      : { 'spawn-protection': Math.min(64, num(raw['spawn-protection'], 16)), 'allow-nether': raw['allow-nether'] !== 'false' }),
  };
}
