import {
  agentEndpoints,
  builtinPlugin,
  builtinPlugins,
  endpoints,
  findSoftware,
  JAVA_CATALOGUE_PAGE,
  javaPluginSourceNames,
  javaPluginSources,
  PLUGIN_UPLOAD_MAX_BYTES,
  pluginFolderFor,
  pluginSettingsProblem,
  pluginSettingsSchema,
  type AgentPluginsResult,
  type JavaPluginSource,
  type ServerPluginsResult,
} from '@spawnpoint/contracts';
import type { AppContext } from '../context.ts';
import type { NodeRegistry } from '../nodes.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { uploadToNode, withMultipartFile } from '../servers/node-upload.ts';
import {
  catalogueTarget,
  fileNameProblem,
  HangarCatalogue,
  ModrinthCatalogue,
  newestOf,
  type JavaCatalogue,
} from '../plugins/java-catalogue.ts';

type Server = { id: string; nodeId: string; software: string; version: string };

/** The first-party catalogue runs on the built-in runtime (flying-squid) only. */
const runsBuiltins = (server: Server) => findSoftware(server.software)?.runtime === 'flying-squid';

/**
 * The Plugins page (docs/guide.md, Plugins): the node keeps the record in the server folder and does every
 * write through its sandbox (plugin-record.ts in the agent), one operation per server at a time; the API
 * checks each request field by field first, so a mistake is named on its field, resolves catalogue versions
 * (Modrinth, Hangar) for Java servers, and logs what was done.
 */
export function pluginRoutes(route: Route, ctx: AppContext): void {
  // The name of a plugin being removed, for its activity entry (the answer no longer lists it).
  const removedNames = new WeakMap<object, string>();
  // The record id a catalogue install ended under (the catalogue's own project id), for its activity entry.
  const installedIds = new WeakMap<object, string>();
  const userAgent = `spawnpoint/0.1 (+${ctx.config.publicUrl})`;
  const cacheMs = ctx.config.PLUGIN_CATALOGUE_CACHE_SECONDS * 1000;
  const catalogues: Record<JavaPluginSource, JavaCatalogue> = {
    modrinth: new ModrinthCatalogue(ctx.config.MODRINTH_API_URL, userAgent, cacheMs, ctx.config.MODRINTH_TOKEN),
    hangar: new HangarCatalogue(ctx.config.HANGAR_API_URL, userAgent, cacheMs, ctx.config.HANGAR_API_KEY),
  };
  // Hangar lists Paper plugins only; Fabric's mods come from Modrinth.
  const sourcesFor = (server: Server): JavaPluginSource[] => {
    const target = catalogueTarget(server.software, server.version);
    if (!target) return [];
    return target.kind === 'plugins' ? [...javaPluginSources] : ['modrinth'];
  };
  const targetFor = (server: Server, source: JavaPluginSource) => {
    const target = catalogueTarget(server.software, server.version);
    if (!target || !sourcesFor(server).includes(source)) {
      const message = `${javaPluginSourceNames[source]} has nothing for ${findSoftware(server.software)?.name ?? server.software} servers.`;
      throw new ApiError('INVALID_INPUT', { source: message }, message);
    }
    return target;
  };
  const agentList = (nodes: NodeRegistry, server: Server) =>
    nodes.call(server.nodeId, agentEndpoints.plugins, { params: { serverId: server.id } });

  /** Newer versions of installed catalogue plugins; a catalogue that cannot be asked now shows none. */
  const updatesOf = async (server: Server, installed: AgentPluginsResult): Promise<Record<string, string>> => {
    const target = catalogueTarget(server.software, server.version);
    const updates: Record<string, string> = {};
    if (!target) return updates;
    await Promise.all(
      installed.plugins.map(async (p) => {
        if ((p.source !== 'modrinth' && p.source !== 'hangar') || !p.projectId) return;
        const newest = newestOf(await catalogues[p.source].versions(p.projectId, target).catch(() => []));
        if (newest && newest.versionId !== p.versionId) updates[p.id] = newest.version;
      }),
    );
    return updates;
  };

  const present = async (server: Server, installed: AgentPluginsResult, q = ''): Promise<ServerPluginsResult> => {
    const words = q.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const has = new Set(installed.plugins.map((p) => p.id));
    const available = runsBuiltins(server);
    return {
      ...installed,
      updates: await updatesOf(server, installed),
      javaSources: sourcesFor(server),
      catalogueAvailable: available,
      catalogue: builtinPlugins
        .filter((p) => words.every((w) => `${p.name} ${p.summary} ${p.commands.map((c) => c.usage).join(' ')}`.toLowerCase().includes(w)))
        .map((p) => ({
          id: p.id,
          name: p.name,
          summary: p.summary,
          version: p.version,
          commands: p.commands,
          compatible: available && p.versions.includes(server.version),
          installed: has.has(p.id),
        })),
    };
  };

  /**
   * Asks the node to fetch and install a version of a catalogue project: the one asked for, which must be
   * among those for the server's software and Minecraft version, or else the newest of them.
   */
  const installVersion = async (
    nodes: NodeRegistry,
    server: Server,
    source: JavaPluginSource,
    projectId: string,
    wanted: string | null,
    installedVersion: string | null,
    onProject?: (recordId: string) => void,
  ) => {
    const target = targetFor(server, source);
    const [project, versions] = await Promise.all([catalogues[source].project(projectId), catalogues[source].versions(projectId, target)]);
    onProject?.(`${source}:${project.projectId}`);
    const softwareName = `${findSoftware(server.software)?.name ?? server.software} ${server.version}`;
    const newest = wanted === null ? newestOf(versions) : (versions.find((v) => v.versionId === wanted) ?? null);
    if (!newest) {
      const message =
        wanted === null
          ? `${project.name} has no version for ${softwareName}.`
          : `That version of ${project.name} is not one for ${softwareName}. Choose one from the list.`;
      throw new ApiError('INVALID_INPUT', { [wanted === null ? 'projectId' : 'versionId']: message }, message);
    }
    if (newest.versionId === installedVersion)
      throw new ApiError(
        'INVALID_STATE',
        undefined,
        wanted === null ? `${project.name} is already at its newest version.` : `${project.name} ${newest.version} is already installed.`,
      );
    const badName = fileNameProblem(newest.fileName);
    if (badName) throw new ApiError('INVALID_INPUT', { projectId: badName }, badName);
    return nodes.call(server.nodeId, agentEndpoints.pluginsChange, {
      params: { serverId: server.id },
      body: {
        action: 'install-file',
        file: {
          source,
          // The catalogue's own id of the project (Modrinth's id, Hangar's slug), not what the client sent:
          // a project asked for by its slug once and by its id once is still one plugin, and the record's
          // id keeps to its length.
          projectId: project.projectId,
          versionId: newest.versionId,
          name: project.name.slice(0, 100),
          version: newest.version,
          url: newest.url,
          fileName: newest.fileName,
          folder: target.kind,
          size: newest.size,
          sha512: newest.sha512,
          sha256: newest.sha256,
        },
      },
    });
  };

  route(endpoints.plugins, async ({ nodes, server, query }) => present(server, await agentList(nodes, server), query.q));

  route(endpoints.pluginVersions, async ({ nodes, server, query }) => {
    const target = targetFor(server, query.source);
    const [versions, installed] = await Promise.all([catalogues[query.source].versions(query.projectId, target), agentList(nodes, server)]);
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
    const target = targetFor(server, query.source);
    const [found, installed] = await Promise.all([
      catalogues[query.source].search(query.q ?? '', target, query.page),
      agentList(nodes, server),
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

  route(
    endpoints.pluginsChange,
    async ({ nodes, server, body }) => {
      switch (body.action) {
        case 'install-project':
          return present(
            server,
            await installVersion(nodes, server, body.source, body.projectId, body.versionId ?? null, null, (recordId) =>
              installedIds.set(body, recordId),
            ),
          );
        case 'update': {
          const found = (await agentList(nodes, server)).plugins.find((p) => p.id === body.id);
          if (!found) throw new ApiError('NOT_FOUND', undefined, 'That plugin is not installed.');
          if ((found.source !== 'modrinth' && found.source !== 'hangar') || !found.projectId)
            throw new ApiError(
              'INVALID_INPUT',
              undefined,
              `${found.name} does not come from a catalogue: it updates with the node, or upload it again.`,
            );
          return present(
            server,
            await installVersion(nodes, server, found.source, found.projectId, body.versionId ?? null, found.versionId),
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
          const found = (await agentList(nodes, server)).plugins.find((p) => p.id === body.id);
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
      return present(server, await nodes.call(server.nodeId, agentEndpoints.pluginsChange, { params: { serverId: server.id }, body }));
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
      return present(server, result);
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
      return present(server, await nodes.call(server.nodeId, agentEndpoints.pluginUpload, { params: { serverId: server.id }, body }));
    },
    // Room beyond base64 of the largest file, so a file somewhat too large is told its limit by the schema.
    { bodyLimit: 4 * PLUGIN_UPLOAD_MAX_BYTES, activity: ({ body }) => ({ action: 'plugin.upload', target: body.fileName }) },
  );
}
