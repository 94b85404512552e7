import {
  agentEndpoints,
  builtinPlugin,
  builtinPlugins,
  endpoints,
  findSoftware,
  PLUGIN_UPLOAD_MAX_BYTES,
  pluginSettingsProblem,
  pluginSettingsSchema,
  type AgentPluginsResult,
  type ServerPluginsResult,
} from '@spawnpoint/contracts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';

type Server = { id: string; nodeId: string; software: string; version: string };

/** The first-party catalogue runs on the built-in runtime (flying-squid) only. */
const runsBuiltins = (server: Server) => findSoftware(server.software)?.runtime === 'flying-squid';

/**
 * The Plugins page (issue 15): the node keeps the record in the server folder and does every write
 * through its sandbox (plugin-record.ts in the agent), one operation per server at a time; the API checks
 * each request field by field first, so a mistake is named on its field, and logs what was done.
 */
export function pluginRoutes(route: Route, ctx: AppContext): void {
  const { nodes } = ctx.game;

  const withCatalogue = (server: Server, installed: AgentPluginsResult, q = ''): ServerPluginsResult => {
    const words = q.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const has = new Set(installed.plugins.map((p) => p.id));
    const available = runsBuiltins(server);
    return {
      ...installed,
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

  route(endpoints.plugins, async ({ server, query }) =>
    withCatalogue(server, await nodes.call(server.nodeId, agentEndpoints.plugins, { params: { serverId: server.id } }), query.q),
  );

  route(
    endpoints.pluginsChange,
    async ({ server, body }) => {
      if (body.action === 'install') {
        const plugin = builtinPlugin(body.id);
        if (!plugin)
          throw new ApiError(
            'INVALID_INPUT',
            { id: 'There is no such plugin in the catalogue.' },
            'There is no such plugin in the catalogue.',
          );
        if (!runsBuiltins(server) || !plugin.versions.includes(server.version)) {
          const message = `${plugin.name} runs on the built-in runtime's versions only; this server runs ${server.software} ${server.version}.`;
          throw new ApiError('INVALID_INPUT', { id: message }, message);
        }
      }
      if (body.action === 'settings') {
        const plugin = builtinPlugin(body.id);
        if (plugin) {
          const parsed = pluginSettingsSchema(plugin).safeParse(body.settings);
          if (!parsed.success) {
            const fields = Object.fromEntries(parsed.error.issues.map((i) => [`settings.${String(i.path[0] ?? '')}`, i.message]));
            throw new ApiError('INVALID_INPUT', fields, parsed.error.issues[0]!.message);
          }
          const problem = pluginSettingsProblem(plugin.id, parsed.data);
          if (problem) throw new ApiError('INVALID_INPUT', { [`settings.${problem.key}`]: problem.message }, problem.message);
        }
      }
      return withCatalogue(
        server,
        await nodes.call(server.nodeId, agentEndpoints.pluginsChange, { params: { serverId: server.id }, body }),
      );
    },
    { activity: ({ body }) => ({ action: `plugin.${body.action}`, target: builtinPlugin(body.id)?.name ?? body.id }) },
  );

  route(
    endpoints.pluginUpload,
    async ({ server, body }) => {
      if (!runsBuiltins(server)) {
        const message = `Your own .js plugins run on the built-in runtime only; this server runs ${server.software}.`;
        throw new ApiError('INVALID_INPUT', { fileName: message }, message);
      }
      return withCatalogue(server, await nodes.call(server.nodeId, agentEndpoints.pluginUpload, { params: { serverId: server.id }, body }));
    },
    // Room beyond base64 of the largest file, so a file somewhat too large is told its limit by the schema.
    { bodyLimit: 4 * PLUGIN_UPLOAD_MAX_BYTES, activity: ({ body }) => ({ action: 'plugin.upload', target: body.fileName }) },
  );
}
