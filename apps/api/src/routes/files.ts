import type { Readable } from 'node:stream';
import {
  EDITABLE_MAX_BYTES,
  archiveRequest,
  chmodRequest,
  deleteFilesRequest,
  extractRequest,
  extractResult,
  fileListResult,
  fileSearchResult,
  mkdirRequest,
  mkdirResult,
  pathQuery,
  renameRequest,
  searchQuery,
  serverIdParams,
  serverProperties,
  writeFileRequest,
} from '@spawnpoint/contracts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { requireSession, type AppContext } from '../context.ts';
import { attachmentDisposition } from '../http/content-disposition.ts';
import { ApiError, ok, parse } from '../http/errors.ts';
import { AgentCutOff, UPLOAD_INCOMPLETE, type NodeRegistry } from '../nodes.ts';

const q = (value: string) => encodeURIComponent(value);
const diskUsage = z.object({ used: z.number(), quota: z.number() });

/** Passes an agent's streamed answer on, never holding it in memory. */
function relay(reply: FastifyReply, download: Awaited<ReturnType<NodeRegistry['download']>>, filename: string) {
  const length = download.headers['content-length'];
  if (length) reply.header('content-length', length);
  reply.header('content-disposition', attachmentDisposition(filename));
  reply.type(download.headers['content-type'] ?? 'application/octet-stream');
  return reply.send(download.body);
}

/** Files and server.properties of a server: every route checks its permission, then asks the agent. */
export function fileRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { directory, hub, nodes } = ctx.game;

  const authorize = async (
    request: Parameters<typeof requireSession>[1],
    permission: 'files.read' | 'files.write' | 'properties.update',
  ) => {
    const session = await requireSession(ctx, request);
    const { serverId } = parse(serverIdParams, request.params);
    return directory.authorize(session.user.id, serverId, permission);
  };
  const base = (serverId: string) => `/v1/servers/${serverId}`;

  /**
   * Writes a file on the node. When the node cut the body short and its answer was lost with the
   * connection, the one refusal it makes midway is the disk limit: ask it whether the file could have fitted.
   */
  const writeFile = async (
    server: { id: string; nodeId: string },
    path: string,
    body: Buffer | Readable,
    overwrite = true,
    declaredSize?: number,
  ) => {
    const size = declaredSize !== undefined ? `&size=${declaredSize}` : '';
    try {
      await nodes.upload(server.nodeId, 'PUT', `${base(server.id)}/files/write?path=${q(path)}&overwrite=${overwrite}${size}`, body);
    } catch (err) {
      if (!(err instanceof AgentCutOff)) throw err;
      const usage = diskUsage.safeParse(await nodes.json(server.nodeId, 'GET', `${base(server.id)}/files/usage`).catch(() => null));
      if (usage.success && usage.data.used + err.sentBytes > usage.data.quota)
        throw new ApiError('DISK_LIMIT', undefined, "The file does not fit in this server's disk. Delete files or upgrade the plan.");
      throw err;
    }
  };

  app.get('/v1/server/:serverId/files/list', async (request) => {
    const server = await authorize(request, 'files.read');
    const { path } = parse(pathQuery, request.query);
    return ok(await nodes.typed(fileListResult, server.nodeId, 'GET', `${base(server.id)}/files/list?path=${q(path)}`));
  });

  app.get('/v1/server/:serverId/files/search', async (request) => {
    const server = await authorize(request, 'files.read');
    const { q: query } = parse(searchQuery, request.query);
    return ok(await nodes.typed(fileSearchResult, server.nodeId, 'GET', `${base(server.id)}/files/search?q=${q(query)}`));
  });

  app.get('/v1/server/:serverId/files/usage', async (request) => {
    const server = await authorize(request, 'files.read');
    return ok(await nodes.typed(diskUsage, server.nodeId, 'GET', `${base(server.id)}/files/usage`));
  });

  app.get('/v1/server/:serverId/files/download', async (request, reply) => {
    const server = await authorize(request, 'files.read');
    const { path } = parse(pathQuery, request.query);
    const download = await nodes.download(server.nodeId, `${base(server.id)}/files/download?path=${q(path)}`);
    const name = path.split('/').filter(Boolean).pop() ?? server.name;
    const isArchive = (download.headers['content-type'] ?? '').includes('gzip') && !name.endsWith('.gz');
    return relay(reply, download, isArchive ? `${name}.tar.gz` : name);
  });

  // Text for the editor: refused beyond the size cap and for binary files, with a message saying why.
  app.get('/v1/server/:serverId/files/content', async (request) => {
    const server = await authorize(request, 'files.read');
    const { path } = parse(pathQuery, request.query);
    const download = await nodes.download(server.nodeId, `${base(server.id)}/files/download?path=${q(path)}`);
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
    return ok({ path, content: bytes.toString('utf8') });
  });

  app.put('/v1/server/:serverId/files/content', { bodyLimit: EDITABLE_MAX_BYTES * 2 + 64 * 1024 }, async (request) => {
    const server = await authorize(request, 'files.write');
    const body = parse(writeFileRequest, request.body);
    const bytes = Buffer.from(body.content, 'utf8');
    if (bytes.length > EDITABLE_MAX_BYTES)
      throw new ApiError('INVALID_INPUT', { content: 'The file is too large to save from the editor.' });
    await writeFile(server, body.path, bytes, body.overwrite);
    return ok(null);
  });

  // One file per request (multipart), streamed to the node as it arrives: memory does not grow with size.
  app.post('/v1/server/:serverId/files/upload', async (request, reply) => {
    const server = await authorize(request, 'files.write');
    const { path, size } = parse(
      z.object({ path: z.string().min(1).max(4096), size: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional() }),
      request.query,
    );
    const file = await request.file({ limits: { files: 1, fileSize: 1024 * 1024 * 1024 * 1024 } }).catch((err: unknown) => {
      // The multipart parser fails only on what the client sent (cut off, malformed); its own 4xx say what.
      const status = (err as { statusCode?: unknown }).statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) throw err;
      throw new ApiError('INVALID_INPUT', undefined, UPLOAD_INCOMPLETE);
    });
    if (!file) throw new ApiError('INVALID_INPUT', { file: 'Choose a file to upload.' });
    try {
      await writeFile(server, path, file.file, true, size);
    } catch (err) {
      // Refused before the whole form was read (DISK_LIMIT midway): the rest is not wanted, and this
      // connection cannot carry another request, so the client stops sending and reads the answer.
      if (!file.file.readableEnded) reply.header('connection', 'close');
      throw err;
    }
    return ok(null);
  });

  const simple = (route: string, schema: z.ZodType, result: z.ZodType = z.null()) => {
    app.post(`/v1/server/:serverId/files/${route}`, async (request) => {
      const server = await authorize(request, 'files.write');
      const body = parse(schema, request.body);
      return ok(await nodes.typed(result, server.nodeId, 'POST', `${base(server.id)}/files/${route}`, body));
    });
  };
  app.post('/v1/server/:serverId/files/mkdir', async (request) => {
    const server = await authorize(request, 'files.write');
    const body = parse(mkdirRequest, request.body);
    return ok(await nodes.typed(mkdirResult, server.nodeId, 'POST', `${base(server.id)}/files/mkdir`, body));
  });
  simple('rename', renameRequest);
  simple('delete', deleteFilesRequest);
  simple('archive', archiveRequest);
  simple('extract', extractRequest, extractResult);
  simple('chmod', chmodRequest);

  // server.properties through the typed form; values the form does not offer are kept as they are.
  app.get('/v1/server/:serverId/properties', async (request) => {
    const server = await authorize(request, 'files.read');
    const raw = await nodes.typed(z.record(z.string(), z.string()), server.nodeId, 'GET', `${base(server.id)}/properties`);
    return ok(typedProperties(raw));
  });

  app.put('/v1/server/:serverId/properties', async (request) => {
    const server = await authorize(request, 'properties.update');
    const values = parse(serverProperties, request.body);
    const asText = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
    const raw = await nodes.typed(z.record(z.string(), z.string()), server.nodeId, 'PUT', `${base(server.id)}/properties`, {
      values: asText,
    });
    const typed = typedProperties(raw);
    // A server that is not running will run with these slots; a running one keeps its own until restarted.
    if (hub.stateOf(server.id) === 'offline') hub.recordMaxPlayers(server.id, Math.min(typed['max-players'], server.maxPlayers));
    return ok(typed);
  });
}

function typedProperties(raw: Record<string, string>) {
  const num = (v: string | undefined, d: number) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : d);
  const pick = <T extends string>(v: string | undefined, allowed: readonly T[], d: T): T => (allowed.includes(v as T) ? (v as T) : d);
  return {
    motd: raw.motd ?? '',
    'max-players': Math.min(10, Math.max(1, num(raw['max-players'], 10))),
    gamemode: pick(raw.gamemode, ['survival', 'creative', 'adventure', 'spectator'] as const, 'survival'),
    difficulty: pick(raw.difficulty, ['peaceful', 'easy', 'normal', 'hard'] as const, 'easy'),
    'view-distance': Math.min(32, Math.max(2, num(raw['view-distance'], 10))),
    'level-seed': /^-?\d*$/.test(raw['level-seed'] ?? '') ? (raw['level-seed'] ?? '') : '',
    'level-type': pick(raw['level-type'], ['default', 'flat'] as const, 'default'),
  };
}
