import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { agentEndpoints, type AgentBackupEvent, type AgentUploadEvent, type LinkGrant, type LinkSigner } from '@spawnpoint/contracts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { agentRouter } from './agent-route.ts';
import { attachmentDisposition } from './content-disposition.ts';
import { sendFileBody } from './file-body.ts';
import {
  extractArchive,
  extractFolderArchive,
  openTrees,
  packLimitMessage,
  packLimitOf,
  packTarGz,
  sandboxSink,
} from '../files/archives.ts';
import type { ManagedServer } from '../server/managed-server.ts';
import { parseProperties, propertyValue, updateProperties } from '../server/properties.ts';
import type { Sandbox } from '../files/sandbox.ts';
import { pathParts, SandboxError } from '../files/sandbox.ts';
import { sha256Tap, type BackupStorage } from '../server/storage.ts';
import { withUploadBody } from './upload-body.ts';

export interface FileDeps {
  servers: Map<string, ManagedServer>;
  storage: BackupStorage;
  emitBackup: (event: AgentBackupEvent) => void;
  /** A file a browser uploaded through a signed link, written in full (the API logs it as its uploader's). */
  emitUpload: (event: AgentUploadEvent) => void;
  /** Backups being made, by server (listed in the agent's hello); link/reports.ts takes one off once the API recorded its end. */
  runningBackups: Map<string, string>;
  /** Checks the signed download links the API hands to browsers (key derived from the node token). */
  signer: LinkSigner;
  /** The API's time as the node reckons it: link expiry is checked against it. */
  apiNow: () => number;
}

export function sendSandboxError(reply: FastifyReply, err: SandboxError) {
  const status = err.code === 'NOT_FOUND' ? 404 : err.code === 'INVALID_INPUT' ? 400 : err.code === 'NO_PERMISSION' ? 403 : 409;
  return reply.status(status).send({ status: err.code, message: err.message });
}

/** Whether something is at `parts` (a file there is for ensureDir to refuse, with its own message). */
async function exists(sandbox: Sandbox, parts: string[]): Promise<boolean> {
  return sandbox.stat(parts).then(
    () => true,
    (err: unknown) => {
      if (err instanceof SandboxError && err.code === 'NOT_FOUND') return false;
      throw err;
    },
  );
}

export const backupKey = (serverId: string, backupId: string) => `backups/${serverId}/${backupId}.tar.gz`;

/** Where the local storage keeps a backup (tests look at it). */
export function backupFile(storageDir: string, serverId: string, backupId: string): string {
  return path.join(storageDir, ...backupKey(serverId, backupId).split('/'));
}

/**
 * A file as it is (sent from the descriptor the sandbox opened by sendFileBody, nothing in between), or a
 * folder as a tar.gz made on the fly. A reader that goes away closes everything at once: sendFileBody stops
 * reading and closes the file, and the packing of a folder ends with its output.
 */
async function sendEntry(reply: FastifyReply, sandbox: Sandbox, target: string, name?: string): Promise<FastifyReply> {
  const entry = await sandbox.stat(target);
  if (entry.type === 'file') {
    // Made before the file is opened: nothing that could fail stands between the open and sendFileBody's close.
    const disposition = name === undefined ? undefined : attachmentDisposition(name);
    const opened = await sandbox.openFile(target);
    if (disposition !== undefined) reply.header('content-disposition', disposition);
    await sendFileBody(reply.type('application/octet-stream'), opened);
    return reply;
  }
  if (entry.type !== 'directory') throw new SandboxError('INVALID_INPUT', 'Only files and folders can be downloaded.');
  // Opened before answering: a folder that is gone or swapped for a link is a clear refusal, not a broken stream.
  const trees = await openTrees(sandbox, [target]);
  const out = new PassThrough();
  // A reader that goes away mid-stream (a cancelled download) ends the packing and closes every file it
  // had open; the error is handled here.
  reply.raw.once('close', () => out.destroy());
  packTarGz(trees, out, 1, undefined, packLimitOf(sandbox.quotaBytes)).catch((err: unknown) => out.destroy(err as Error));
  if (name !== undefined) reply.header('content-disposition', attachmentDisposition(`${name}.tar.gz`));
  return reply.type('application/gzip').send(out);
}

/**
 * Whether a signed link may be followed now: its signature covers exactly this purpose, server, path or
 * backup, name (a download) or size and overwrite choice (an upload), and expiry. A refusal is the
 * envelope (403 NO_PERMISSION), never the file. `now`: the API's time as the node reckons it (ApiClock),
 * since the API set the expiry.
 */
async function linkRefusal(signer: LinkSigner, grant: LinkGrant, signature: string, now: number): Promise<string | null> {
  const [kind, again] = grant.purpose === 'file-upload' ? ['upload', 'Upload it again'] : ['download', 'Download it again'];
  if (!(await signer.verify(grant, signature))) return `This ${kind} link is not valid. ${again} from the dashboard.`;
  if (grant.expires * 1000 < now) return `This ${kind} link has expired. ${again} from the dashboard.`;
  return null;
}

/**
 * Passes exactly `size` bytes on: one more fails the write (the link was made for that size, or the
 * uploader declared it, and the disk check with it), as does a body that ends short of it. Either way the
 * sandbox keeps nothing.
 */
async function* exactly(
  source: AsyncIterable<Buffer>,
  size: number,
  said = {
    larger: 'The file is larger than the size its upload link was made for.',
    short: 'The upload did not complete. Please try again.',
  },
): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.length;
    if (seen > size) throw new SandboxError('INVALID_INPUT', said.larger);
    yield chunk;
  }
  if (seen < size) throw new SandboxError('INVALID_INPUT', said.short);
}
const DECLARED = {
  larger: 'The file is larger than the size the upload declared.',
  short: 'The file is smaller than the size the upload declared.',
};

type Route = ReturnType<typeof agentRouter>;
/** The server a path names, with its sandbox; NOT_FOUND when it is not on this node. */
type ServerOf = (params: { serverId: string }) => Promise<{ managed: ManagedServer; sandbox: Sandbox }>;

/** File, properties and backup endpoints of the agent, every path through the server's sandbox. */
export function fileRoutes(http: FastifyInstance, deps: FileDeps): void {
  const route = agentRouter(http);
  const server: ServerOf = async ({ serverId }) => {
    const managed = deps.servers.get(serverId);
    if (!managed) throw new SandboxError('NOT_FOUND', 'This server is not on this node.');
    return { managed, sandbox: await managed.sandbox() };
  };
  http.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
  readingRoutes(route, server, deps);
  writingRoutes(route, server, deps);
  folderRoutes(route, server);
  propertiesRoutes(route, server);
  backupRoutes(route, server, deps);
}

/** Listing, searching, measuring and downloading. */
function readingRoutes(route: Route, server: ServerOf, deps: FileDeps): void {
  route(agentEndpoints.fileList, async ({ params, query }) => (await server(params)).sandbox.list(query.path));

  route(agentEndpoints.fileSearch, async ({ params, query }) => (await server(params)).sandbox.search(query.q));

  route(agentEndpoints.diskUsage, async ({ params }) => {
    const { sandbox } = await server(params);
    return { used: await sandbox.measure(), quota: sandbox.quotaBytes };
  });

  // For the control plane (the editor reads text through it): no name, no browser headers.
  route(agentEndpoints.fileDownload, async ({ reply, params, query: { path: target } }) =>
    sendEntry(reply, (await server(params)).sandbox, target),
  );

  // A browser following a link the API signed: checked by the link alone, then straight from the disk.
  route(agentEndpoints.signedFileDownload, async ({ reply, params: { serverId }, query }) => {
    const grant: LinkGrant = { purpose: 'file-download', serverId, subject: query.path, name: query.name, expires: query.expires };
    const refusal = await linkRefusal(deps.signer, grant, query.signature, deps.apiNow());
    if (refusal) return reply.status(403).send({ status: 'NO_PERMISSION', message: refusal });
    return sendEntry(reply, (await server({ serverId })).sandbox, query.path, query.name);
  });
}

/** Writing files: the control plane's writes and the browsers' uploads through signed links. */
function writingRoutes(route: Route, server: ServerOf, deps: FileDeps): void {
  route(agentEndpoints.fileWrite, async ({ request, params, query }) =>
    withUploadBody(request.body, async (body) => {
      const { sandbox } = await server(params);
      // What the uploader declared: refused at once when it cannot fit, and the file must be that size.
      if (query.size !== undefined) await sandbox.checkFits(query.path, query.size);
      const source = query.size === undefined ? body : exactly(body, query.size, DECLARED);
      return { bytes: await sandbox.writeFrom(query.path, source, { overwrite: query.overwrite === 'true' }) };
    }),
  );

  // A browser sending a file straight here, through a link the API signed after checking who may (the
  // dashboard's uploads): checked by the link alone, the body exactly the signed size, through the sandbox.
  route(agentEndpoints.signedFileUpload, async ({ request, params: { serverId }, query }) => {
    const overwrite = query.overwrite === 'true';
    const grant: LinkGrant = {
      purpose: 'file-upload',
      serverId,
      path: query.path,
      size: query.size,
      overwrite,
      actorId: query.actor,
      ip: query.ip,
      expires: query.expires,
    };
    // Every refusal is thrown inside: the body is then read and dropped, so the browser gets the answer.
    return withUploadBody(request.body, async (body) => {
      const refusal = await linkRefusal(deps.signer, grant, query.signature, deps.apiNow());
      if (refusal) throw new SandboxError('NO_PERMISSION', refusal);
      const declared = request.headers['content-length'];
      if (declared !== undefined && Number(declared) !== query.size)
        throw new SandboxError('INVALID_INPUT', 'The file is not the size its upload link was made for.');
      const { sandbox } = await server({ serverId });
      await sandbox.checkFits(query.path, query.size);
      const bytes = await sandbox.writeFrom(query.path, exactly(body, query.size), { overwrite });
      deps.emitUpload({ serverId, path: query.path, bytes, actorId: query.actor, ...(query.ip === undefined ? {} : { ip: query.ip }) });
      return { bytes };
    });
  });

  route(agentEndpoints.fileFits, async ({ params, body }) => {
    const { sandbox } = await server(params);
    // A name in use that may not be replaced is refused now too, not once the bytes are on their way.
    if (!body.overwrite && (await exists(sandbox, pathParts(body.path))))
      throw new SandboxError('INVALID_STATE', `${pathParts(body.path).at(-1) ?? body.path} already exists.`);
    await sandbox.checkFits(body.path, body.size);
    return null;
  });
}

/** Folders and whole selections: make, rename, delete, permissions, pack and unpack. */
function folderRoutes(route: Route, server: ServerOf): void {
  route(agentEndpoints.fileMkdir, async ({ params, body: { path: target, parents } }) => {
    const { sandbox } = await server(params);
    if (!parents) {
      await sandbox.mkdir(target);
      return { created: 1 };
    }
    // mkdir -p: the uploader sends every folder of a tree; what exists already is fine. The levels missing
    // now are counted (below the first missing one, every level is missing) so the upload can say how many
    // folders it made; ensureDir refuses a file or a link on the way.
    const parts = pathParts(target);
    let existing = 0;
    while (existing < parts.length && (await exists(sandbox, parts.slice(0, existing + 1)))) existing++;
    await sandbox.ensureDir(parts);
    return { created: parts.length - existing };
  });

  route(agentEndpoints.fileRename, async ({ params, body: { from, to } }) => {
    await (await server(params)).sandbox.rename(from, to);
    return null;
  });

  route(agentEndpoints.fileDelete, async ({ params, body }) => {
    const { sandbox } = await server(params);
    for (const target of body.paths) await sandbox.remove(target);
    return null;
  });

  route(agentEndpoints.fileChmod, async ({ params, body: { path: target, mode } }) => {
    await (await server(params)).sandbox.chmod(target, mode);
    return null;
  });

  route(agentEndpoints.fileArchive, async ({ params, body: { paths, destination } }) => {
    const { sandbox } = await server(params);
    if (!destination.endsWith('.tar.gz')) throw new SandboxError('INVALID_INPUT', 'The archive name must end in .tar.gz.');
    // Entries are named relative to the folder the selection is in, so extracting there gives the same files.
    const trees = await openTrees(sandbox, paths);
    const sink = sandboxSink(sandbox, destination);
    // Answer once both ended (the partial file is gone); the writer's refusal (DISK_LIMIT) says most.
    const [packed, written] = await Promise.allSettled([
      packTarGz(trees, sink.stream, 6, undefined, packLimitOf(sandbox.quotaBytes)),
      sink.done,
    ]);
    if (written.status === 'rejected') throw written.reason;
    if (packed.status === 'rejected') throw packed.reason;
    return null;
  });

  route(agentEndpoints.fileExtract, async ({ params, body: { path: archive, destination } }) =>
    extractArchive((await server(params)).sandbox, archive, destination),
  );
}

/** server.properties, read and written as key/value pairs. */
function propertiesRoutes(route: Route, server: ServerOf): void {
  route(agentEndpoints.propertiesRead, async ({ params }) => {
    const { sandbox } = await server(params);
    const text = (await sandbox.readTextIfExists('server.properties')) ?? '';
    return Object.fromEntries(parseProperties(text));
  });

  route(agentEndpoints.propertiesWrite, async ({ params, body: { values } }) => {
    const { sandbox } = await server(params);
    const current = (await sandbox.readTextIfExists('server.properties')) ?? '';
    const next = updateProperties(current, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, propertyValue(v)])));
    await sandbox.writeFrom('server.properties', Readable.from([Buffer.from(next)]), { overwrite: true });
    return Object.fromEntries(parseProperties(next));
  });
}

/** Backups: made, downloaded through a signed link, deleted and restored. */
function backupRoutes(route: Route, server: ServerOf, deps: FileDeps): void {
  route(agentEndpoints.backupCreate, async ({ params: { serverId, backupId } }) => {
    const { managed, sandbox } = await server({ serverId });
    const key = backupKey(serverId, backupId);
    if (await deps.storage.exists(key)) throw new SandboxError('INVALID_STATE', 'This backup already exists.');
    // Answer at once; progress and the result arrive as agent:backup events.
    deps.runningBackups.set(serverId, backupId);
    // Listed as being made until the API has recorded how it ended (emitBackup takes it off then).
    void runBackup(managed, sandbox, deps.storage, key, (event) => deps.emitBackup({ serverId, backupId, ...event }));
    return null;
  });

  route(agentEndpoints.signedBackupDownload, async ({ reply, params: { serverId, backupId }, query }) => {
    const grant: LinkGrant = { purpose: 'backup-download', serverId, subject: backupId, name: query.name, expires: query.expires };
    const refusal = await linkRefusal(deps.signer, grant, query.signature, deps.apiNow());
    if (refusal) return reply.status(403).send({ status: 'NO_PERMISSION', message: refusal });
    const key = backupKey(serverId, backupId);
    const missing = () => new SandboxError('NOT_FOUND', 'This backup does not exist.');
    // Named only once it is found: a refusal is the envelope, never saved as the backup's file.
    const named = () => reply.header('content-disposition', attachmentDisposition(query.name)).type('application/gzip');
    // On the node's disk the file is sent straight from its descriptor; from a bucket, as the bucket streams it.
    if (deps.storage.openFile) {
      const opened = await deps.storage.openFile(key);
      if (!opened) throw missing();
      await sendFileBody(named(), opened);
      return reply;
    }
    const found = await deps.storage.get(key);
    if (!found) throw missing();
    return named().header('content-length', found.size).send(found.stream);
  });

  route(agentEndpoints.backupDelete, async ({ params: { serverId, backupId } }) => {
    await deps.storage.remove(backupKey(serverId, backupId));
    return null;
  });

  route(agentEndpoints.backupRestore, async ({ params: { serverId, backupId } }) => {
    const { managed } = await server({ serverId });
    const found = await deps.storage.get(backupKey(serverId, backupId));
    if (!found) throw new SandboxError('NOT_FOUND', 'This backup does not exist.');
    await managed.backups
      .restore(async (staging) => {
        // Our own backup: names restored as they are, whatever the game created.
        await extractFolderArchive(staging, found.stream);
      })
      .finally(() => found.stream.destroy());
    return null;
  });
}

/**
 * tar.gz (level 1) of the whole server folder streamed into storage and hashed on the way; the storage
 * makes the key visible only once complete (local: `.partial` then rename; S3: multipart completion).
 */
async function runBackup(
  managed: ManagedServer,
  sandbox: Sandbox,
  storage: BackupStorage,
  key: string,
  report: (event: Omit<AgentBackupEvent, 'serverId' | 'backupId'>) => void,
): Promise<void> {
  let totalBytes = 0;
  let bytes = 0;
  let lastReport = 0;
  const { tap, digest, bytes: size } = sha256Tap();
  // Called without awaiting (progress goes out as events): every failure must end as a `failed` event.
  try {
    await managed.backups.before();
  } catch (err) {
    report({ phase: 'failed', bytes, totalBytes, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  try {
    totalBytes = await sandbox.measure();
    // Far larger than the disk (a sparse file of terabytes): refused before anything is read.
    if (totalBytes > packLimitOf(sandbox.quotaBytes))
      throw new SandboxError('INVALID_STATE', packLimitMessage(packLimitOf(sandbox.quotaBytes)));
    const trees = await openTrees(sandbox, ['/']);
    report({ phase: 'running', bytes: 0, totalBytes });
    // Both awaited together: a failing store stops the packing and neither failure goes unhandled.
    await Promise.all([
      storage.put(key, tap),
      packTarGz(
        trees,
        tap,
        1,
        (n) => {
          bytes += n;
          if (Date.now() - lastReport > 250) {
            lastReport = Date.now();
            report({ phase: 'running', bytes, totalBytes });
          }
        },
        packLimitOf(sandbox.quotaBytes),
      ),
    ]);
    report({ phase: 'complete', bytes: totalBytes, totalBytes, size: size(), sha256: digest() });
  } catch (err) {
    tap.destroy();
    report({ phase: 'failed', bytes, totalBytes, error: err instanceof Error ? err.message : String(err) });
  } finally {
    managed.backups.after();
  }
}
