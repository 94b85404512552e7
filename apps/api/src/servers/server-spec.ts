import { FREE_DISK_MB, planById, type AgentServerSpec, type SoftwareId } from '@spawnpoint/contracts';
import type { ServerRow } from '../db/rows.ts';

/** What a node is told of a server: its software, port, limits and whether its owner accepted the EULA. */
export function specOf(server: ServerRow): AgentServerSpec {
  return {
    serverId: server.id,
    software: server.software as SoftwareId,
    version: server.version,
    port: server.port,
    memoryMb: server.memoryMb,
    diskMb: (planById(server.planId)?.diskMb ?? FREE_DISK_MB) + server.extraDiskMb,
    maxPlayers: server.maxPlayers,
    motd: `${server.name} on Spawnpoint`,
    eulaAccepted: server.eulaAcceptedAt !== null,
  };
}
