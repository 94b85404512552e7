import {
  backupListPage,
  backupRestoreResult,
  backupSummary,
  extractResult,
  fileListResult,
  fileSearchResult,
  mkdirResult,
  serverProperties,
  type ServerProperties,
} from '@spawnpoint/contracts';
import { z } from 'zod';
import { api, ApiFailure } from './api.ts';
import { handleApiError } from './api-errors.ts';
import { settings } from './settings.ts';

const base = (serverId: string) => `/v1/server/${encodeURIComponent(serverId)}`;
const q = encodeURIComponent;

export const joinPath = (dir: string, name: string) => `${dir.replace(/\/+$/, '')}/${name}`.replace(/^\/*/, '/');
export const parentOf = (p: string) => p.replace(/\/[^/]*\/?$/, '') || '/';

/** `background`: an upload looking for names in use sums its failures up itself. */
export const listFiles = (serverId: string, path: string, options: { background?: boolean } = {}) =>
  api('GET', `${base(serverId)}/files/list?path=${q(path)}`, { result: fileListResult, background: options.background ?? false });
export const searchFiles = (serverId: string, query: string) =>
  api('GET', `${base(serverId)}/files/search?q=${q(query)}`, { result: fileSearchResult });
export const diskUsage = (serverId: string) =>
  api('GET', `${base(serverId)}/files/usage`, { result: z.object({ used: z.number(), quota: z.number() }), background: true });
export const readFile = (serverId: string, path: string) =>
  api('GET', `${base(serverId)}/files/content?path=${q(path)}`, { result: z.object({ path: z.string(), content: z.string() }) });
/** Saves text; `overwrite: false` (a new file) is refused when the name exists rather than emptying that file. */
export const saveFile = (serverId: string, path: string, content: string, options: { overwrite?: boolean } = {}) =>
  api('PUT', `${base(serverId)}/files/content`, { body: { path, content, overwrite: options.overwrite ?? true }, result: z.null() });
/**
 * Makes a folder. `parents` is mkdir -p (a folder that exists is fine); `background` leaves telling the
 * user to the caller (an upload sums its failures up in one toast).
 */
export const makeFolder = (serverId: string, path: string, options: { parents?: boolean; background?: boolean } = {}) =>
  api('POST', `${base(serverId)}/files/mkdir`, {
    body: { path, parents: options.parents ?? false },
    result: mkdirResult,
    background: options.background ?? false,
  });
export const renamePath = (serverId: string, from: string, to: string) =>
  api('POST', `${base(serverId)}/files/rename`, { body: { from, to }, result: z.null() });
export const changeMode = (serverId: string, path: string, mode: number) =>
  api('POST', `${base(serverId)}/files/chmod`, { body: { path, mode }, result: z.null() });
export const deletePaths = (serverId: string, paths: string[]) =>
  api('POST', `${base(serverId)}/files/delete`, { body: { paths }, result: z.null() });
export const archivePaths = (serverId: string, paths: string[], destination: string) =>
  api('POST', `${base(serverId)}/files/archive`, { body: { paths, destination }, result: z.null() });
export const extractArchive = (serverId: string, path: string, destination: string) =>
  api('POST', `${base(serverId)}/files/extract`, { body: { path, destination }, result: extractResult });
export const downloadUrl = (serverId: string, path: string) => `${settings.apiBaseUrl}${base(serverId)}/files/download?path=${q(path)}`;

/** An upload stopped by its `signal` (the Cancel button): the request was aborted, so the server keeps nothing of it. */
export class UploadCancelled extends Error {
  constructor() {
    super('The upload was cancelled.');
  }
}

/**
 * Uploads one file with progress (XMLHttpRequest reports upload progress; fetch does not). With
 * `background` a failure is only rejected, for the caller to report (an upload of many files sums up).
 * Aborting `signal` aborts the request and rejects with UploadCancelled.
 */
export function uploadFile(
  serverId: string,
  path: string,
  file: File,
  onProgress: (loaded: number) => void,
  options: { background?: boolean; signal?: AbortSignal } = {},
): Promise<void> {
  const report = (failure: ApiFailure) => {
    if (!options.background) handleApiError(failure);
  };
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new UploadCancelled());
    const xhr = new XMLHttpRequest();
    const cancel = () => xhr.abort();
    signal?.addEventListener('abort', cancel, { once: true });
    xhr.onloadend = () => signal?.removeEventListener('abort', cancel);
    xhr.onabort = () => reject(new UploadCancelled());
    // The declared size lets the server refuse at once a file that cannot fit, before it is sent.
    xhr.open('POST', `${settings.apiBaseUrl}${base(serverId)}/files/upload?path=${q(path)}&size=${file.size}`);
    xhr.withCredentials = true;
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onerror = () => {
      const failure = new ApiFailure('NETWORK_ERROR', 'The upload was interrupted. Check your connection and try again.');
      report(failure);
      reject(failure);
    };
    xhr.onload = () => {
      let body: { status?: string; message?: string } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // handled below
      }
      if (body.status === 'SUCCESS') {
        onProgress(file.size);
        resolve();
        return;
      }
      const failure = new ApiFailure(
        (body.status as ApiFailure['code']) ?? 'BAD_RESPONSE',
        body.message ?? `The upload failed (HTTP ${xhr.status}).`,
      );
      report(failure);
      reject(failure);
    };
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

export const getProperties = (serverId: string) => api('GET', `${base(serverId)}/properties`, { result: serverProperties });
export const putProperties = (serverId: string, values: ServerProperties) =>
  api('PUT', `${base(serverId)}/properties`, { body: values, result: serverProperties });

/** `background` for the polls while a job runs: a passing failure must not toast every second. */
export const listBackups = (serverId: string, options: { background?: boolean } = {}) =>
  api('GET', `${base(serverId)}/backups`, { result: backupListPage, background: options.background ?? false });
export const createBackup = (serverId: string) =>
  api('POST', `${base(serverId)}/backups`, { body: {}, result: z.object({ backupId: z.string() }) });
export const restoreBackup = (serverId: string, backupId: string) =>
  api('POST', `${base(serverId)}/backups/${q(backupId)}/restore`, { body: {}, result: backupRestoreResult });
export const lockBackup = (serverId: string, backupId: string, locked: boolean) =>
  api('POST', `${base(serverId)}/backups/${q(backupId)}/lock`, { body: { locked }, result: backupSummary });
export const deleteBackup = (serverId: string, backupId: string) =>
  api('DELETE', `${base(serverId)}/backups/${q(backupId)}`, { result: z.null() });
export const backupDownloadUrl = (serverId: string, backupId: string) =>
  `${settings.apiBaseUrl}${base(serverId)}/backups/${q(backupId)}/download`;
