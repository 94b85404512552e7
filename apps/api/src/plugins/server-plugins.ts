import {
  agentEndpoints,
  builtinPlugins,
  findSoftware,
  javaPluginSourceNames,
  javaPluginSources,
  type AgentPluginsResult,
  type JavaPluginSource,
  type ServerPluginsResult,
} from '@spawnpoint/contracts';
import type { Config } from '../config.ts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import { catalogueTarget, fileNameProblem, HangarCatalogue, ModrinthCatalogue, newestOf, type JavaCatalogue } from './java-catalogue.ts';

/** What the plugin routes need of a server. */
export type PluginServer = { id: string; nodeId: string; software: string; version: string };

/** The first-party catalogue runs on the built-in runtime (flying-squid) only. */
export const runsBuiltins = (server: PluginServer) => findSoftware(server.software)?.runtime === 'flying-squid';

/**
 * A server's plugins as the Plugins page shows them: the node's record, the built-in catalogue, and for Java
 * servers the catalogues (Modrinth, Hangar) with the newer versions of what is installed.
 */
export class ServerPlugins {
  private readonly catalogues: Record<JavaPluginSource, JavaCatalogue>;

  constructor(config: Config) {
    const userAgent = `spawnpoint/0.1 (+${config.publicUrl})`;
    const cacheMs = config.PLUGIN_CATALOGUE_CACHE_SECONDS * 1000;
    this.catalogues = {
      modrinth: new ModrinthCatalogue(config.MODRINTH_API_URL, userAgent, cacheMs, config.MODRINTH_TOKEN),
      hangar: new HangarCatalogue(config.HANGAR_API_URL, userAgent, cacheMs, config.HANGAR_API_KEY),
    };
  }

  catalogue(source: JavaPluginSource): JavaCatalogue {
    return this.catalogues[source];
  }

  /** Hangar lists Paper plugins only; Fabric's mods come from Modrinth. */
  sourcesFor(server: PluginServer): JavaPluginSource[] {
    const target = catalogueTarget(server.software, server.version);
    if (!target) return [];
    return target.kind === 'plugins' ? [...javaPluginSources] : ['modrinth'];
  }

  /** What a catalogue is asked for on this server's behalf; INVALID_INPUT where it has nothing for it. */
  targetFor(server: PluginServer, source: JavaPluginSource) {
    const target = catalogueTarget(server.software, server.version);
    if (!target || !this.sourcesFor(server).includes(source)) {
      const message = `${javaPluginSourceNames[source]} has nothing for ${findSoftware(server.software)?.name ?? server.software} servers.`;
      throw new ApiError('INVALID_INPUT', { source: message }, message);
    }
    return target;
  }

  /** The node's record of the server's plugins. */
  installed(nodes: NodeRegistry, server: PluginServer): Promise<AgentPluginsResult> {
    return nodes.call(server.nodeId, agentEndpoints.plugins, { params: { serverId: server.id } });
  }

  /** Newer versions of installed catalogue plugins; a catalogue that cannot be asked now shows none. */
  private async updatesOf(server: PluginServer, installed: AgentPluginsResult): Promise<Record<string, string>> {
    const target = catalogueTarget(server.software, server.version);
    const updates: Record<string, string> = {};
    if (!target) return updates;
    await Promise.all(
      installed.plugins.map(async (p) => {
        if ((p.source !== 'modrinth' && p.source !== 'hangar') || !p.projectId) return;
        const newest = newestOf(await this.catalogues[p.source].versions(p.projectId, target).catch(() => []));
        if (newest && newest.versionId !== p.versionId) updates[p.id] = newest.version;
      }),
    );
    return updates;
  }

  /** The page's answer: the node's record, the updates, and the built-in catalogue searched for `q`. */
  async present(server: PluginServer, installed: AgentPluginsResult, q = ''): Promise<ServerPluginsResult> {
    const words = q.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const has = new Set(installed.plugins.map((p) => p.id));
    const available = runsBuiltins(server);
    return {
      ...installed,
      updates: await this.updatesOf(server, installed),
      javaSources: this.sourcesFor(server),
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
  }

  /**
   * Asks the node to fetch and install a version of a catalogue project: the one asked for, which must be
   * among those for the server's software and Minecraft version, or else the newest of them.
   */
  async installVersion(
    nodes: NodeRegistry,
    server: PluginServer,
    asked: { source: JavaPluginSource; projectId: string; wanted: string | null; installedVersion: string | null },
    onProject?: (recordId: string) => void,
  ): Promise<AgentPluginsResult> {
    const { source, projectId, wanted, installedVersion } = asked;
    const target = this.targetFor(server, source);
    const [project, versions] = await Promise.all([
      this.catalogues[source].project(projectId),
      this.catalogues[source].versions(projectId, target),
    ]);
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
  }
}
