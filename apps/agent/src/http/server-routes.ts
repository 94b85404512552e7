import { rm } from 'node:fs/promises';
import path from 'node:path';
import { agentEndpoints, type AgentServerSpec } from '@spawnpoint/contracts';
import { z } from 'zod';
import type { AgentRoute } from './agent-route.ts';
import type { AgentConfig } from '../config.ts';
import { InvalidStateError, type ManagedServer } from '../server/managed-server.ts';
import { canBind } from '../server/ports.ts';
import { removeTree, SandboxError } from '../files/sandbox.ts';
import { extractFolderArchive, openTrees, packLimitOf, packTarGz } from '../files/archives.ts';
import { backupKey } from './server-files.ts';
import { readHashed, sha256Tap, type BackupStorage } from '../server/storage.ts';

/** Where a sleeping server's folder waits in shared storage. */
export const sleepingKey = (serverId: string) => `sleeping/${serverId}.tar.gz`;

export interface ServerRouteDeps {
  servers: Map<string, ManagedServer>;
  newServer: (spec: AgentServerSpec) => ManagedServer;
  storage: BackupStorage;
  config: Pick<AgentConfig, 'GAME_BIND_HOST' | 'serversDir' | 'runDir'>;
}

/** A server's life on this node: install (or update) its spec, power, console commands and history, removal; and which game ports are free. */
export function serverRoutes(route: AgentRoute, deps: ServerRouteDeps): void {
  serverLifeRoutes(route, deps);
  serverRemovalRoutes(route, deps);
}

/** The server of this id on this node; NOT_FOUND when there is none. */
function knownIn(servers: Map<string, ManagedServer>, id: string): ManagedServer {
  const server = servers.get(id);
  if (!server) throw new SandboxError('NOT_FOUND', 'This server is not on this node.');
  return server;
}

/** Ends the server here and deletes its folder and run records (not what it has in storage). */
async function dropHere({ servers, config }: ServerRouteDeps, serverId: string): Promise<void> {
  const server = servers.get(serverId);
  if (server) {
    server.markRemoved();
    await server.power('kill');
    await server.closeSandbox();
    servers.delete(serverId);
  }
  // Through descriptors: a link the game planted in its folder is removed, never followed.
  await removeTree(path.join(config.serversDir, serverId));
  await rm(path.join(config.runDir, serverId), { recursive: true, force: true });
}

/** Free game ports, the spec, power, console commands and history. */
function serverLifeRoutes(route: AgentRoute, { servers, newServer, config }: ServerRouteDeps): void {
  const installing = new Map<string, Promise<{ server: ManagedServer; err: unknown }>>();
  const known = (id: string) => knownIn(servers, id);

  // The control plane allocates ports from its own records; only the node knows what else listens here.
  route(agentEndpoints.portsBindable, async ({ body: { ports } }) => {
    const free = await Promise.all(ports.map((port) => canBind(port, config.GAME_BIND_HOST)));
    return { bindable: ports.filter((_, i) => free[i]) };
  });

  // Install or update a server's spec; idempotent. The API sends the whole spec before every start.
  route(agentEndpoints.install, async ({ params: { serverId }, body: spec }) => {
    if (spec.serverId !== serverId)
      throw new z.ZodError([{ code: 'custom', path: ['serverId'], message: 'Mismatched server id.', input: spec.serverId }]);
    const failed = (err: unknown) => {
      if (err instanceof SandboxError) throw err;
      throw new InvalidStateError(err instanceof Error ? err.message : String(err));
    };
    let server = servers.get(serverId);
    if (server) {
      const previousSlots = server.spec.maxPlayers;
      server.spec = spec;
      // A new plan or disk bought: the folder's quota follows at once (a smaller one refuses writes until
      // files are deleted, and the start, as a full disk does).
      await server.sandbox().then(
        (sandbox) => (sandbox.quotaBytes = spec.diskMb * 1024 * 1024),
        () => undefined,
      );
      await server.install().catch(failed);
      // A file it cannot rewrite now (a restore under way) keeps its number: capped by the plan all the same.
      if (spec.maxPlayers !== previousSlots) await server.followPlanSlots(previousSlots).catch(() => undefined);
    } else {
      // A new server is known to the other endpoints only once its folder is installed, so nobody sees a
      // half-made folder; concurrent installs of one new server share the work.
      let pending = installing.get(serverId);
      if (!pending) {
        const made = newServer(spec);
        pending = made
          .install()
          .then(
            () => null,
            (err: unknown) => err,
          )
          .then((err) => {
            servers.set(serverId, made);
            installing.delete(serverId);
            return { server: made, err };
          });
        installing.set(serverId, pending);
      }
      const done = await pending;
      server = done.server;
      if (done.err) failed(done.err);
      // Another request created it meanwhile: this request's spec is the newer one (a start may have
      // moved the server to another port).
      if (server.spec !== spec) {
        server.spec = spec;
        await server.install().catch(failed);
      }
    }
    return { serverId, state: server.state, maxPlayers: await server.maxPlayers() };
  });

  route(agentEndpoints.power, async ({ params: { serverId }, body: { action } }) => {
    const server = known(serverId);
    // Answered once the action is accepted (state and disk checked); progress and later failures arrive
    // as state events and console lines.
    await server.request(action);
    return { serverId, state: server.state };
  });

  route(agentEndpoints.command, async ({ params: { serverId }, body: { command } }) => {
    known(serverId).command(command);
    return null;
  });

  route(agentEndpoints.consoleHistory, async ({ params: { serverId } }) => ({ lines: servers.get(serverId)?.console.lines() ?? [] }));
}

/** Removal, and a sleeping server's folder to shared storage and back (it may wake on another node). */
function serverRemovalRoutes(route: AgentRoute, deps: ServerRouteDeps): void {
  const { servers, storage } = deps;
  const known = (id: string) => knownIn(servers, id);

  route(agentEndpoints.remove, async ({ params: { serverId } }) => {
    await dropHere(deps, serverId);
    await storage.removePrefix(`backups/${serverId}`);
    await storage.remove(sleepingKey(serverId));
    return null;
  });

  // --- a sleeping server's folder to shared storage and back (it may wake on another node) ---

  route(agentEndpoints.storageUpload, async ({ params: { serverId } }) => {
    const server = known(serverId);
    const key = sleepingKey(serverId);
    return server.backups.upload(await server.sandbox(), async (sandbox) => {
      const sent = sha256Tap();
      // Both awaited together: a failing store stops the packing and neither failure goes unhandled.
      await Promise.all([
        storage.put(key, sent.tap),
        packTarGz(await openTrees(sandbox, ['/']), sent.tap, 1, undefined, packLimitOf(sandbox.quotaBytes)),
      ]);
      const sha256 = sent.digest();
      // Read back before anyone drops the node's copy: what storage holds must be exactly what was sent.
      const stored = await storage.get(key);
      const readBack = stored ? readHashed(stored.stream) : null;
      if (readBack) for await (const _chunk of readBack.stream);
      if (!readBack || readBack.digest() !== sha256)
        throw new InvalidStateError('The archive in storage does not match the server folder; the folder stays on this node.');
      return { sha256, bytes: sent.bytes() };
    });
  });

  route(agentEndpoints.storageDownload, async ({ params: { serverId }, body: { sha256 } }) => {
    const server = known(serverId);
    const found = await storage.get(sleepingKey(serverId));
    if (!found) throw new SandboxError('NOT_FOUND', "This server's archive is not in storage.");
    const received = readHashed(found.stream);
    await server.backups
      .restore(async (staging) => {
        // Swapped in only if every byte is the one stored.
        const failure = await extractFolderArchive(staging, received.stream).then(
          () => null,
          (err: unknown) => err,
        );
        // A full disk is the plan's, not the archive's; any other failure (a broken gzip, a tar that ends
        // early) is read as the archive having changed, as a digest that differs is.
        if (failure instanceof SandboxError && failure.code === 'DISK_LIMIT') throw failure;
        if (failure || received.digest() !== sha256)
          throw new InvalidStateError("The server's archive in storage is damaged (its SHA-256 does not match); it was not used.");
      }, 'downloading')
      .finally(() => found.stream.destroy());
    return null;
  });

  route(agentEndpoints.backupFromStorage, async ({ params: { serverId, backupId }, body: { sha256 } }) => {
    const key = backupKey(serverId, backupId);
    if (await storage.exists(key)) throw new SandboxError('INVALID_STATE', 'This backup already exists.');
    const found = await storage.get(sleepingKey(serverId));
    if (!found) throw new SandboxError('NOT_FOUND', "This server's archive is not in storage.");
    // The stored archive is a backup already (the same tar.gz of the whole folder): copied, and kept only
    // if what was copied is exactly the archive recorded.
    const copied = readHashed(found.stream);
    await storage.put(key, copied.stream);
    if (copied.digest() !== sha256) {
      await storage.remove(key);
      throw new InvalidStateError("The server's archive in storage is damaged (its SHA-256 does not match); no backup was made.");
    }
    return { size: copied.bytes() };
  });

  route(agentEndpoints.dropLocalCopy, async ({ params: { serverId } }) => {
    await dropHere(deps, serverId);
    return null;
  });
}
