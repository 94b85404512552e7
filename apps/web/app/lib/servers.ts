import {
  nameAvailabilityResult,
  serverDetails,
  type serverAppearanceRequest,
  softwareResult,
  type PowerAction,
  type ServerState,
} from '@spawnpoint/contracts';
import { z } from 'zod';
import { api } from './api.ts';
import { fetchServers } from './user-store.ts';

export const stateLabels: Record<ServerState, string> = {
  offline: 'Offline',
  queued: 'Queued',
  starting: 'Starting',
  online: 'Online',
  stopping: 'Stopping',
  sleeping: 'Sleeping',
  waking: 'Waking up',
  backing_up: 'Backing up',
  restoring: 'Restoring',
  installing: 'Installing',
  locked: 'Locked',
};

export function fetchServer(serverId: string, background = false) {
  return api('GET', `/v1/server/${encodeURIComponent(serverId)}`, { result: serverDetails, background });
}

export function updateAppearance(serverId: string, appearance: z.input<typeof serverAppearanceRequest>) {
  return api('POST', `/v1/server/${encodeURIComponent(serverId)}/appearance`, { body: appearance, result: serverDetails });
}

export function checkName(name: string, signal: AbortSignal) {
  return api('GET', `/v1/server/name-available?name=${encodeURIComponent(name)}`, {
    result: nameAvailabilityResult,
    background: true,
    signal,
  });
}

export function listSoftware() {
  return api('GET', '/v1/server/software', { result: softwareResult });
}

export async function createServer(body: { serverName: string; software: string; version: string }) {
  const server = await api('POST', '/v1/server/create', { body, result: serverDetails });
  await fetchServers();
  return server;
}

export async function powerServer(serverId: string, action: PowerAction) {
  return api('POST', `/v1/server/${encodeURIComponent(serverId)}/${action}`, {
    body: {},
    result: z.object({ serverId: z.string(), state: z.string() }),
  });
}

export async function deleteServer(serverId: string) {
  await api('DELETE', `/v1/server/${encodeURIComponent(serverId)}`, { result: z.null() });
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
