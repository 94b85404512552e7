import type { Readable } from 'node:stream';
import { agentEndpoints, findSoftware, pluginFolderFor, type PluginRecord } from '@spawnpoint/contracts';
import type { AgentRoute } from './agent-route.ts';
import { InvalidStateError, type ManagedServer } from '../server/managed-server.ts';
import type { PluginDownloadPolicy } from '../software/plugin-download.ts';
import { changePlugins, PluginRecordError, readPluginRecord, uploadPlugin, uploadPluginJar } from '../software/plugin-record.ts';
import { SandboxError } from '../files/sandbox.ts';
import { withUploadBody } from './upload-body.ts';

/**
 * A server's plugins on this node: the record in its folder, changed one operation at a time per server
 * (a second one while one runs is INVALID_STATE), every write through the sandbox and its disk quota.
 */
export function pluginRoutes(route: AgentRoute, servers: Map<string, ManagedServer>, caged: boolean, policy: PluginDownloadPolicy): void {
  const busy = new Set<string>();
  const known = (serverId: string) => {
    const server = servers.get(serverId);
    if (!server) throw new SandboxError('NOT_FOUND', 'This server is not on this node.');
    return server;
  };
  const builtinRuntime = (server: ManagedServer) => findSoftware(server.spec.software)?.runtime === 'flying-squid';

  const present = (server: ManagedServer, record: PluginRecord) => ({
    plugins: record.plugins,
    restartNeeded:
      (server.state === 'online' || server.state === 'starting') &&
      server.pluginsAtLaunch !== null &&
      server.pluginsAtLaunch !== record.changedAt,
    uploadsAllowed: caged && builtinRuntime(server),
  });

  const exclusive = async <T>(serverId: string, work: () => Promise<T>): Promise<T> => {
    if (busy.has(serverId))
      throw new InvalidStateError('Another plugin change is still running on this server. Try again when it is done.');
    busy.add(serverId);
    try {
      return await work();
    } catch (err) {
      // A record changed by hand is the user's to fix: said as it is, not as a failure of the node.
      if (err instanceof PluginRecordError) throw new InvalidStateError(err.message);
      throw err;
    } finally {
      busy.delete(serverId);
    }
  };

  route(agentEndpoints.plugins, async ({ params: { serverId } }) => {
    const server = known(serverId);
    const record = await readPluginRecord(await server.sandbox()).catch((err: unknown) => {
      if (err instanceof PluginRecordError) throw new InvalidStateError(err.message);
      throw err;
    });
    return present(server, record);
  });

  route(agentEndpoints.pluginsChange, async ({ params: { serverId }, body }) => {
    const server = known(serverId);
    if (body.action === 'install' && !builtinRuntime(server))
      throw new SandboxError(
        'INVALID_INPUT',
        `The first-party plugins run on the built-in runtime only; this server runs ${server.spec.software}.`,
      );
    if (body.action === 'install-file' && builtinRuntime(server))
      throw new SandboxError('INVALID_INPUT', 'Java plugins and mods run on Java servers only; this server runs the built-in runtime.');
    return exclusive(serverId, async () => present(server, await changePlugins(await server.sandbox(), body, policy)));
  });

  route(agentEndpoints.pluginJarUpload, async ({ request, params: { serverId }, query }) =>
    withUploadBody(request.body as Readable, async (body) => {
      const server = known(serverId);
      const folder = pluginFolderFor(server.spec.software);
      if (!folder)
        throw new SandboxError(
          'INVALID_INPUT',
          builtinRuntime(server)
            ? 'The built-in runtime runs .js plugins, not jars.'
            : `${findSoftware(server.spec.software)?.name ?? server.spec.software} servers load no plugins or mods.`,
        );
      return exclusive(serverId, async () => {
        const sandbox = await server.sandbox();
        // What the uploader declared: refused at once when it cannot fit.
        await sandbox.ensureDir(folder);
        if (query.size !== undefined) await sandbox.checkFits([folder, query.fileName], query.size);
        return present(server, await uploadPluginJar(sandbox, folder, query.fileName, body));
      });
    }),
  );

  route(agentEndpoints.pluginUpload, async ({ params: { serverId }, body }) => {
    const server = known(serverId);
    if (!builtinRuntime(server))
      throw new SandboxError(
        'INVALID_INPUT',
        `Your own .js plugins run on the built-in runtime only; this server runs ${server.spec.software}.`,
      );
    // The owner's code runs only inside the cage (its own user, namespaces and limits), never beside the node's.
    if (!caged) throw new InvalidStateError('This node runs game servers without the cage, so it does not run plugin code of your own.');
    const bytes = Buffer.from(body.content, 'base64');
    return exclusive(serverId, async () => present(server, await uploadPlugin(await server.sandbox(), body.fileName, bytes)));
  });
}
