import { agentEndpoints, endpoints } from '@spawnpoint/contracts';
import type { Route } from '../http/route.ts';

/**
 * The Players page: the node reads the game's lists and applies each change, through the console of a
 * running server or into the files of a stopped one. Reading needs `console.read`; changing needs
 * `console.command`, since each change is what a console command does.
 */
export function playerRoutes(route: Route): void {
  route(endpoints.serverPlayers, async ({ nodes, server }) =>
    nodes.call(server.nodeId, agentEndpoints.players, { params: { serverId: server.id } }),
  );

  route(
    endpoints.serverPlayersUpdate,
    async ({ nodes, server, body }) => nodes.call(server.nodeId, agentEndpoints.playersUpdate, { params: { serverId: server.id }, body }),
    {
      // The action and the player (a ban's reason is the moderator's words, so it is left out).
      activity: ({ body }) => ({
        action: 'players.update',
        target: body.action === 'whitelist' ? `whitelist ${body.enabled ? 'on' : 'off'}` : `${body.action} ${body.name}`,
      }),
    },
  );
}
