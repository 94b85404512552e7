import { motdOf, protocolOf, proxyMessages } from './proxy-settings.ts';
import { normaliseAddress, serverNameOf, type Handshake, type LegacyPing, type StatusInfo } from './protocol.ts';
import type { RouteTable } from './route-table.ts';

/** The proxy's own status answer for a handshake: the server is not running (or unknown); it never wakes anything. */
export function statusInfoFor(table: RouteTable, handshake: Handshake | null): StatusInfo {
  const protocolVersion = handshake?.protocolVersion ?? 0;
  const domain = table.playDomain();
  if (!domain) return { versionName: 'Spawnpoint', protocolVersion, online: 0, max: 0, motd: proxyMessages.notReady };
  const name = handshake ? serverNameOf(normaliseAddress(handshake.address), domain) : null;
  const route = name ? table.get(name) : undefined;
  if (!route) return { versionName: 'Spawnpoint', protocolVersion, online: 0, max: 0, motd: proxyMessages.unknown };
  return {
    versionName: route.version,
    // The server's own protocol, so a launcher of another version shows it as incompatible in the list.
    protocolVersion: protocolOf(route.version) ?? protocolVersion,
    online: 0,
    max: route.maxPlayers,
    motd: motdOf(route),
    favicon: route.icon,
    serverMotd: route.motd,
  };
}

/** The answer to a legacy (pre-1.7) server list ping naming `host`, which may be absent. */
export function legacyInfoFor(table: RouteTable, ping: LegacyPing): StatusInfo {
  const domain = table.playDomain();
  const name = domain && ping.host ? serverNameOf(normaliseAddress(ping.host), domain) : null;
  const route = name ? table.get(name) : undefined;
  const protocolVersion = ping.protocolVersion ?? 127;
  if (!route)
    return { versionName: 'Spawnpoint', protocolVersion, online: 0, max: 0, motd: domain ? proxyMessages.unknown : proxyMessages.notReady };
  return {
    versionName: route.version,
    protocolVersion: protocolOf(route.version) ?? protocolVersion,
    online: 0,
    max: route.maxPlayers,
    motd: route.state === 'online' ? 'Online — join with Minecraft 1.7 or newer' : motdOf(route),
  };
}
