import { endpoints, type PowerAction, type ServerState } from '@spawnpoint/contracts';
import { call, type EndpointInput } from './api.ts';
import { fetchServers } from './user-store.ts';

export const stateLabels: Record<ServerState, string> = {
  offline: 'Offline',
  queued: 'Queued',
  starting: 'Starting',
  online: 'Online',
  stopping: 'Stopping',
  sleeping: 'Sleeping',
  waking: 'Waking up',
  uploading: 'Going to sleep',
  downloading: 'Fetching files',
  backing_up: 'Backing up',
  restoring: 'Restoring',
  installing: 'Installing',
  locked: 'Locked',
};

export function fetchServer(serverId: string, background = false) {
  return call(endpoints.server, { params: { serverId } }, { background });
}

export function updateAppearance(serverId: string, appearance: EndpointInput<typeof endpoints.serverAppearance>['body']) {
  return call(endpoints.serverAppearance, { params: { serverId }, body: appearance });
}

export function checkName(name: string, signal: AbortSignal) {
  return call(endpoints.nameAvailable, { query: { name } }, { background: true, signal });
}

export function listSoftware() {
  return call(endpoints.software, {});
}

export async function createServer(body: EndpointInput<typeof endpoints.serverCreate>['body']) {
  const server = await call(endpoints.serverCreate, { body });
  await fetchServers();
  return server;
}

const powerEndpoints = {
  start: endpoints.serverStart,
  stop: endpoints.serverStop,
  restart: endpoints.serverRestart,
  kill: endpoints.serverKill,
} as const;

export async function powerServer(serverId: string, action: PowerAction) {
  return call(powerEndpoints[action], { params: { serverId } });
}

export async function deleteServer(serverId: string) {
  await call(endpoints.serverDelete, { params: { serverId } });
  await fetchServers();
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
