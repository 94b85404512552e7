import {
  agentEndpoints,
  builtinPlugin,
  endpoints,
  findSoftware,
  JAVA_CATALOGUE_PAGE,
  PLUGIN_UPLOAD_MAX_BYTES,
  pluginFolderFor,
  pluginSettingsProblem,
  pluginSettingsSchema,
} from '@spawnpoint/contracts';
import type { Given } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { runsBuiltins, ServerPlugins } from '../plugins/server-plugins.ts';
import { uploadToNode, withMultipartFile } from '../servers/node-upload.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config'>;

/**
 * The Plugins page (docs/guide.md, Plugins): the node keeps the record in the server folder and does every
 * write through its sandbox (plugin-record.ts in the agent), one operation per server at a time; the API
 * checks each request field by field first, so a mistake is named on its field, resolves catalogue versions
 * (Modrinth, Hangar) for Java servers (plugins/server-plugins.ts), and logs what was done.
 */
export function pluginRoutes(route: Route, ctx: Services): void {
  const plugins = new ServerPlugins(ctx.config);
  pluginReadRoutes(route, plugins);
  pluginChangeRoutes(route, plugins);
  pluginUploadRoutes(route, plugins);
}

/** The page, a project's versions, and a catalogue's search. */
function pluginReadRoutes(route: Route, plugins: ServerPlugins): void {
  route(endpoints.plugins, async ({ nodes, server, query }) => plugins.present(server, await plugins.installed(nodes, server), query.q));

  route(endpoints.pluginVersions, async ({ nodes, server, query }) => {
    const target = plugins.targetFor(server, query.source);
    const [versions, installed] = await Promise.all([
      plugins.catalogue(query.source).versions(query.projectId, target),
      plugins.installed(nodes, server),
    ]);
    const current = installed.plugins.find((p) => p.id === `${query.source}:${query.projectId}`);
    return {
      versions: versions.map(({ versionId, version, fileName, size, channel, published }) => ({
        versionId,
        version,
        fileName,
        size,
        channel,
        published,
      })),
      installedVersionId: current?.versionId ?? null,
    };
  });

  route(endpoints.pluginCatalogue, async ({ nodes, server, query }) => {
    const target = plugins.targetFor(server, query.source);
    const [found, installed] = await Promise.all([
      plugins.catalogue(query.source).search(query.q ?? '', target, query.page),
      plugins.installed(nodes, server),
    ]);
    const has = new Set(installed.plugins.map((p) => p.id));
    return {
      entries: found.entries.map((e) => ({ ...e, source: query.source, installed: has.has(`${query.source}:${e.projectId}`) })),
      total: found.total,
      page: query.page,
      pageSize: JAVA_CATALOGUE_PAGE,
      kind: target.kind,
    };
  });
}

/** Installs, updates, settings, turning off and removing. */
function pluginChangeRoutes(route: Route, plugins: ServerPlugins): void {
  // The name of a plugin being removed, for its activity entry (the answer no longer lists it).
  const removedNames = new WeakMap<object, string>();
  // The record id a catalogue install ended under (the catalogue's own project id), for its activity entry.
  const installedIds = new WeakMap<object, string>();
  route(
    endpoints.pluginsChange,
    async ({ nodes, server, body }) => {
      switch (body.action) {
        case 'install-project':
          return plugins.present(
            server,
            await plugins.installVersion(
              nodes,
              server,
              { source: body.source, projectId: body.projectId, wanted: body.versionId ?? null, installedVersion: null },
              (recordId) => installedIds.set(body, recordId),
            ),
          );
        case 'update': {
          const found = (await plugins.installed(nodes, server)).plugins.find((p) => p.id === body.id);
          if (!found) throw new ApiError('NOT_FOUND', undefined, 'That plugin is not installed.');
          if ((found.source !== 'modrinth' && found.source !== 'hangar') || !found.projectId)
            throw new ApiError(
              'INVALID_INPUT',
              undefined,
              `${found.name} does not come from a catalogue: it updates with the node, or upload it again.`,
            );
          return plugins.present(
            server,
            await plugins.installVersion(nodes, server, {
              source: found.source,
              projectId: found.projectId,
              wanted: body.versionId ?? null,
              installedVersion: found.versionId,
            }),
          );
        }
        case 'install': {
          const plugin = builtinPlugin(body.id);
          const missing = 'There is no such plugin in the catalogue.';
          if (!plugin) throw new ApiError('INVALID_INPUT', { id: missing }, missing);
          if (!runsBuiltins(server) || !plugin.versions.includes(server.version)) {
            const message = `${plugin.name} runs on the built-in runtime's versions only; this server runs ${server.software} ${server.version}.`;
            throw new ApiError('INVALID_INPUT', { id: message }, message);
          }
          break;
        }
        case 'remove': {
          const found = (await plugins.installed(nodes, server)).plugins.find((p) => p.id === body.id);
          if (found) removedNames.set(body, found.name);
          break;
        }
        case 'settings': {
          const plugin = builtinPlugin(body.id);
          if (!plugin) break;
          const parsed = pluginSettingsSchema(plugin).safeParse(body.settings);
          if (!parsed.success) {
            const fields = Object.fromEntries(parsed.error.issues.map((i) => [`settings.${String(i.path[0] ?? '')}`, i.message]));
            throw new ApiError('INVALID_INPUT', fields, parsed.error.issues[0]!.message);
          }
          const problem = pluginSettingsProblem(plugin.id, parsed.data);
          if (problem) throw new ApiError('INVALID_INPUT', { [`settings.${problem.key}`]: problem.message }, problem.message);
          break;
        }
      }
      return plugins.present(
        server,
        await nodes.call(server.nodeId, agentEndpoints.pluginsChange, { params: { serverId: server.id }, body }),
      );
    },
    {
      activity: ({ body }, result) => {
        if (body.action === 'install-project') {
          const recordId = installedIds.get(body) ?? `${body.source}:${body.projectId}`;
          const installed = result?.plugins.find((p) => p.id === recordId);
          return { action: 'plugin.install', target: installed ? `${installed.name} ${installed.version}` : body.projectId };
        }
        const target = result?.plugins.find((p) => p.id === body.id);
        if (body.action === 'update') return { action: 'plugin.update', target: target ? `${target.name} ${target.version}` : body.id };
        return { action: `plugin.${body.action}`, target: target?.name ?? removedNames.get(body) ?? body.id };
      },
    },
  );
}

/** A plugin file of the owner's own. */
function pluginUploadRoutes(route: Route, plugins: ServerPlugins): void {
  // A jar of the owner's own, streamed to the node, which keeps it only if it is a plugin (or a Fabric mod).
  route(
    endpoints.pluginJarUpload,
    async ({ nodes, request, reply, server, query }) => {
      if (!pluginFolderFor(server.software)) {
        const message = runsBuiltins(server)
          ? 'The built-in runtime runs .js plugins, not jars: upload a .js file.'
          : `${findSoftware(server.software)?.name ?? server.software} servers load no plugins or mods. Change the software to Paper, Purpur or Fabric to use them.`;
        throw new ApiError('INVALID_INPUT', { fileName: message }, message);
      }
      const result = await withMultipartFile(request, reply, (file) =>
        uploadToNode(nodes, server, agentEndpoints.pluginJarUpload, { params: { serverId: server.id }, query }, file),
      );
      return plugins.present(server, result);
    },
    { multipart: true, activity: ({ query }) => ({ action: 'plugin.upload', target: query.fileName }) },
  );

  route(
    endpoints.pluginUpload,
    async ({ nodes, server, body }) => {
      if (!runsBuiltins(server)) {
        const message = `Your own .js plugins run on the built-in runtime only; this server runs ${server.software}. Upload a .jar instead.`;
        throw new ApiError('INVALID_INPUT', { fileName: message }, message);
      }
      return plugins.present(
        server,
        await nodes.call(server.nodeId, agentEndpoints.pluginUpload, { params: { serverId: server.id }, body }),
      );
    },
    // Room beyond base64 of the largest file, so a file somewhat too large is told its limit by the schema.
    { bodyLimit: 4 * PLUGIN_UPLOAD_MAX_BYTES, activity: ({ body }) => ({ action: 'plugin.upload', target: body.fileName }) },
  );
}
