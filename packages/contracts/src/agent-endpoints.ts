/**
 * The agent protocol's HTTP side as data, like the API's endpoint table: every call the control plane
 * makes to a node's agent (bearer node token), with the zod schemas of what goes in and what comes back.
 * The agent registers its routes from these entries and the API's one node client calls them, so both
 * sides parse with the same schemas.
 */
import { z } from 'zod';
import {
  agentCommandRequest,
  agentConsoleHistory,
  agentInstallResult,
  agentStoredArchiveRequest,
  agentStoredBackupResult,
  agentStorageUploadResult,
  agentPortsRequest,
  agentPortsResult,
  agentSoftwareVersions,
  agentServerList,
  agentServerSpec,
} from './agent.ts';
import { serverState } from './api.ts';
import { signedBackupQuery, signedFileQuery, signedUploadQuery } from './download-links.ts';
import {
  archiveRequest,
  backupIdParams,
  chmodRequest,
  deleteFilesRequest,
  diskUsageResult,
  extractRequest,
  extractResult,
  fileListResult,
  fileSearchResult,
  mkdirRequest,
  mkdirResult,
  pathQuery,
  renameRequest,
  searchQuery,
} from './files.ts';
import { playerActionRequest, serverPlayersResult } from './server-players.ts';
import { agentPluginChangeRequest, agentPluginsResult, pluginJarQuery, pluginUploadRequest } from './plugins.ts';
import { powerAction, serverIdParams } from './servers.ts';

export interface AgentEndpoint {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify style: `/v1/servers/:serverId`. */
  path: string;
  params?: z.ZodType;
  query?: z.ZodType;
  /** A JSON body. */
  body?: z.ZodType;
  /** The `result` of a SUCCESS answer. */
  result?: z.ZodType;
  /** The answer is a stream (a download), not the JSON envelope. */
  raw?: true;
  /** The request body is a stream of bytes (`application/octet-stream`), not JSON. */
  streamed?: true;
  /**
   * Called by a browser through a link the API signed (`download-links.ts`), not by the control plane:
   * no node token; the route checks the link's signature, expiry, purpose, server and path or backup.
   */
  signed?: true;
  /** Read by a metrics scraper with the node's METRICS_TOKEN (Prometheus' text), not with the node token. */
  metrics?: true;
}

/** `server.properties` as the agent reads it: every key with its raw text. */
export const agentProperties = z.record(z.string(), z.string());
export const agentPropertiesUpdate = z.object({
  values: z.record(
    z
      .string()
      .regex(/^[a-z0-9.-]+$/)
      .max(64),
    z.string().max(256),
  ),
});
export const agentWriteQuery = z.object({
  path: z.string().min(1).max(4096),
  overwrite: z.enum(['true', 'false']).default('true'),
  /** What the uploader declared: refused at once when it cannot fit. */
  size: z.coerce.number().int().min(0).optional(),
});
export const agentWriteResult = z.object({ bytes: z.number().int().min(0) });
export const agentFitsRequest = z.object({
  path: z.string().min(1).max(4096),
  size: z.number().int().min(0),
  /** false: a name in use is refused (INVALID_STATE), as the write would be. */
  overwrite: z.boolean().default(true),
});
export const agentPowerRequest = z.object({ action: powerAction });
export const agentPowerResult = z.object({ serverId: z.string(), state: serverState });

const done = z.null();
const server = serverIdParams;

export const agentEndpoints = {
  servers: { method: 'GET', path: '/v1/servers', result: agentServerList },
  portsBindable: { method: 'POST', path: '/v1/ports/bindable', body: agentPortsRequest, result: agentPortsResult },
  softwareVersions: { method: 'GET', path: '/v1/software/versions', result: agentSoftwareVersions },
  install: { method: 'PUT', path: '/v1/servers/:serverId', params: server, body: agentServerSpec, result: agentInstallResult },
  remove: { method: 'DELETE', path: '/v1/servers/:serverId', params: server, result: done },
  power: { method: 'POST', path: '/v1/servers/:serverId/power', params: server, body: agentPowerRequest, result: agentPowerResult },
  command: { method: 'POST', path: '/v1/servers/:serverId/command', params: server, body: agentCommandRequest, result: done },
  consoleHistory: { method: 'GET', path: '/v1/servers/:serverId/console', params: server, result: agentConsoleHistory },
  fileList: { method: 'GET', path: '/v1/servers/:serverId/files/list', params: server, query: pathQuery, result: fileListResult },
  fileSearch: { method: 'GET', path: '/v1/servers/:serverId/files/search', params: server, query: searchQuery, result: fileSearchResult },
  diskUsage: { method: 'GET', path: '/v1/servers/:serverId/files/usage', params: server, result: diskUsageResult },
  fileDownload: { method: 'GET', path: '/v1/servers/:serverId/files/download', params: server, query: pathQuery, raw: true },
  fileWrite: {
    method: 'PUT',
    path: '/v1/servers/:serverId/files/write',
    params: server,
    query: agentWriteQuery,
    streamed: true,
    result: agentWriteResult,
  },
  // Whether a file of this size would fit at this path now (an overwrite frees the old file's size): DISK_LIMIT
  // if not; INVALID_STATE for a name in use that may not be replaced.
  fileFits: { method: 'POST', path: '/v1/servers/:serverId/files/fits', params: server, body: agentFitsRequest, result: done },
  fileMkdir: { method: 'POST', path: '/v1/servers/:serverId/files/mkdir', params: server, body: mkdirRequest, result: mkdirResult },
  fileRename: { method: 'POST', path: '/v1/servers/:serverId/files/rename', params: server, body: renameRequest, result: done },
  fileDelete: { method: 'POST', path: '/v1/servers/:serverId/files/delete', params: server, body: deleteFilesRequest, result: done },
  fileChmod: { method: 'POST', path: '/v1/servers/:serverId/files/chmod', params: server, body: chmodRequest, result: done },
  fileArchive: { method: 'POST', path: '/v1/servers/:serverId/files/archive', params: server, body: archiveRequest, result: done },
  fileExtract: { method: 'POST', path: '/v1/servers/:serverId/files/extract', params: server, body: extractRequest, result: extractResult },
  propertiesRead: { method: 'GET', path: '/v1/servers/:serverId/properties', params: server, result: agentProperties },
  propertiesWrite: {
    method: 'PUT',
    path: '/v1/servers/:serverId/properties',
    params: server,
    body: agentPropertiesUpdate,
    result: agentProperties,
  },
  backupCreate: { method: 'POST', path: '/v1/servers/:serverId/backups/:backupId', params: backupIdParams, result: done },
  backupDelete: { method: 'DELETE', path: '/v1/servers/:serverId/backups/:backupId', params: backupIdParams, result: done },
  backupRestore: { method: 'POST', path: '/v1/servers/:serverId/backups/:backupId/restore', params: backupIdParams, result: done },
  // A sleeping server's folder to shared storage and back (it may wake on another node). The upload keeps
  // the node's copy until the API, having recorded the archive, drops it (`dropLocalCopy`).
  storageUpload: { method: 'POST', path: '/v1/servers/:serverId/storage/upload', params: server, result: agentStorageUploadResult },
  storageDownload: {
    method: 'POST',
    path: '/v1/servers/:serverId/storage/download',
    params: server,
    body: agentStoredArchiveRequest,
    result: done,
  },
  // A server asleep in shared storage is backed up by copying its archive there (no node holds its folder).
  backupFromStorage: {
    method: 'POST',
    path: '/v1/servers/:serverId/backups/:backupId/from-storage',
    params: backupIdParams,
    body: agentStoredArchiveRequest,
    result: agentStoredBackupResult,
  },
  dropLocalCopy: { method: 'DELETE', path: '/v1/servers/:serverId/local-copy', params: server, result: done },
  // Signed links a browser follows (the API's download endpoints redirect to them): a file as it is or a
  // folder as .tar.gz, and a backup, streamed from the node's disk.
  metrics: { method: 'GET', path: '/metrics', raw: true, metrics: true },
  signedFileDownload: {
    method: 'GET',
    path: '/v1/downloads/:serverId/file',
    params: server,
    query: signedFileQuery,
    raw: true,
    signed: true,
  },
  signedBackupDownload: {
    method: 'GET',
    path: '/v1/downloads/:serverId/backups/:backupId',
    params: backupIdParams,
    query: signedBackupQuery,
    raw: true,
    signed: true,
  },
  // A file the browser sends straight to the node (the dashboard's uploads; the API signed the link after
  // checking the permission and that the file fits): the body is the file, exactly the signed size.
  signedFileUpload: {
    method: 'PUT',
    path: '/v1/uploads/:serverId/file',
    params: server,
    query: signedUploadQuery,
    streamed: true,
    signed: true,
    result: agentWriteResult,
  },
  players: { method: 'GET', path: '/v1/servers/:serverId/players', params: server, result: serverPlayersResult },
  playersUpdate: {
    method: 'POST',
    path: '/v1/servers/:serverId/players',
    params: server,
    body: playerActionRequest,
    result: serverPlayersResult,
  },
  plugins: { method: 'GET', path: '/v1/servers/:serverId/plugins', params: server, result: agentPluginsResult },
  pluginsChange: {
    method: 'POST',
    path: '/v1/servers/:serverId/plugins',
    params: server,
    body: agentPluginChangeRequest,
    result: agentPluginsResult,
  },
  pluginUpload: {
    method: 'POST',
    path: '/v1/servers/:serverId/plugins/upload',
    params: server,
    body: pluginUploadRequest,
    result: agentPluginsResult,
  },
  pluginJarUpload: {
    method: 'PUT',
    path: '/v1/servers/:serverId/plugins/jar',
    params: server,
    query: pluginJarQuery,
    streamed: true,
    result: agentPluginsResult,
  },
} satisfies Record<string, AgentEndpoint>;
