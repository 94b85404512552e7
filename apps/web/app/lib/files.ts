import { endpoints, serverPluginsResult, type ServerProperties } from '@spawnpoint/contracts';
import { ApiFailure, call, endpointUrl } from './api.ts';
import { handleApiError } from './api-errors.ts';
import { settings } from './settings.ts';

export const joinPath = (dir: string, name: string) => `${dir.replace(/\/+$/, '')}/${name}`.replace(/^\/*/, '/');
export const parentOf = (p: string) => p.replace(/\/[^/]*\/?$/, '') || '/';

/** `background`: an upload looking for names in use sums its failures up itself. */
export const listFiles = (serverId: string, path: string, options: { background?: boolean } = {}) =>
  call(endpoints.fileList, { params: { serverId }, query: { path } }, { background: options.background ?? false });
export const searchFiles = (serverId: string, query: string) => call(endpoints.fileSearch, { params: { serverId }, query: { q: query } });
export const diskUsage = (serverId: string) => call(endpoints.diskUsage, { params: { serverId } }, { background: true });
export const readFile = (serverId: string, path: string) => call(endpoints.fileContent, { params: { serverId }, query: { path } });
/** Saves text; `overwrite: false` (a new file) is refused when the name exists rather than emptying that file. */
export const saveFile = (serverId: string, path: string, content: string, options: { overwrite?: boolean } = {}) =>
  call(endpoints.fileSave, { params: { serverId }, body: { path, content, overwrite: options.overwrite ?? true } });
/**
 * Makes a folder. `parents` is mkdir -p (a folder that exists is fine); `background` leaves telling the
 * user to the caller (an upload sums its failures up in one toast).
 */
export const makeFolder = (serverId: string, path: string, options: { parents?: boolean; background?: boolean } = {}) =>
  call(
    endpoints.fileMkdir,
    { params: { serverId }, body: { path, parents: options.parents ?? false } },
    { background: options.background ?? false },
  );
export const renamePath = (serverId: string, from: string, to: string) =>
  call(endpoints.fileRename, { params: { serverId }, body: { from, to } });
export const changeMode = (serverId: string, path: string, mode: number) =>
  call(endpoints.fileChmod, { params: { serverId }, body: { path, mode } });
export const deletePaths = (serverId: string, paths: string[]) => call(endpoints.fileDelete, { params: { serverId }, body: { paths } });
export const archivePaths = (serverId: string, paths: string[], destination: string) =>
  call(endpoints.fileArchive, { params: { serverId }, body: { paths, destination } });
/** Unpacks into a new folder beside the archive, named after it (the answer says which). */
export const extractArchive = (serverId: string, path: string) => call(endpoints.fileExtract, { params: { serverId }, body: { path } });
export const downloadUrl = (serverId: string, path: string) =>
  `${settings.apiBaseUrl}${endpointUrl(endpoints.fileDownload, { params: { serverId }, query: { path } })}`;

/** An upload stopped by its `signal` (the Cancel button): the request was aborted, so the server keeps nothing of it. */
export class UploadCancelled extends Error {
  constructor() {
    super('The upload was cancelled.');
  }
}

/**
 * Uploads one file with progress, straight to the server's node: the API checks the permission and that
 * the file fits (a refusal comes before any byte is sent) and answers a signed link that takes exactly
 * this file; XMLHttpRequest reports upload progress, fetch does not. With `background` a failure is only
 * rejected, for the caller to report (an upload of many files sums up). Aborting `signal` aborts the
 * request and rejects with UploadCancelled; the node keeps nothing of an upload that did not end.
 */
export async function uploadFile(
  serverId: string,
  path: string,
  file: File,
  onProgress: (loaded: number) => void,
  options: { background?: boolean; signal?: AbortSignal; overwrite?: boolean } = {},
): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) throw new UploadCancelled();
  const body = { path, size: file.size, overwrite: options.overwrite !== false };
  let url: string;
  try {
    ({ url } = await call(endpoints.fileUploadLink, { params: { serverId }, body }, { background: true, ...(signal ? { signal } : {}) }));
  } catch (error) {
    if (signal?.aborted) throw new UploadCancelled();
    if (!options.background && error instanceof ApiFailure) handleApiError(error);
    throw error;
  }
  await uploadWithProgress({ method: 'PUT', url, body: file }, file.size, onProgress, options);
}

/** Uploads an owner's plugin or mod jar with progress; the answer is the server's plugins; a refusal is only rejected. */
export const uploadPluginJar = (serverId: string, file: File, onProgress: (loaded: number) => void) =>
  uploadWithProgress(
    {
      method: 'POST',
      url: endpointUrl(endpoints.pluginJarUpload, { params: { serverId }, query: { fileName: file.name, size: file.size } }),
      body: file,
    },
    file.size,
    onProgress,
    // The page says a refusal beside the file field, not in a toast as well.
    { background: true },
  ).then((result) => serverPluginsResult.parse(result));

/**
 * One file sent with progress; resolves with the envelope's result. `POST` is a multipart form to an API
 * address (with the session cookie); `PUT` is the file itself to a signed link on a node (another origin,
 * no cookie: the link is the credential).
 */
function uploadWithProgress(
  target: { method: 'POST' | 'PUT'; url: string; body: File },
  size: number,
  onProgress: (loaded: number) => void,
  options: { background?: boolean; signal?: AbortSignal } = {},
): Promise<unknown> {
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
    if (target.method === 'POST') {
      xhr.open('POST', `${settings.apiBaseUrl}${target.url}`);
      xhr.withCredentials = true;
    } else {
      xhr.open('PUT', target.url);
      xhr.setRequestHeader('content-type', 'application/octet-stream');
    }
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onerror = () => {
      const failure = new ApiFailure('NETWORK_ERROR', 'The upload was interrupted. Check your connection and try again.');
      report(failure);
      reject(failure);
    };
    xhr.onload = () => {
      let body: { status?: string; message?: string; result?: unknown; fields?: Record<string, string> } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // handled below
      }
      if (body.status === 'SUCCESS') {
        onProgress(size);
        resolve(body.result);
        return;
      }
      const failure = new ApiFailure(
        (body.status as ApiFailure['code']) ?? 'BAD_RESPONSE',
        body.message ?? `The upload failed (HTTP ${xhr.status}).`,
        body.fields,
      );
      report(failure);
      reject(failure);
    };
    if (target.method === 'PUT') return xhr.send(target.body);
    const form = new FormData();
    form.append('file', target.body, target.body.name);
    xhr.send(form);
  });
}

export const putProperties = (serverId: string, values: Partial<ServerProperties>) =>
  call(endpoints.propertiesUpdate, { params: { serverId }, body: values });

/** `background` for the polls while a job runs: a passing failure must not toast every second. */
export const listBackups = (serverId: string, options: { background?: boolean } = {}) =>
  call(endpoints.backups, { params: { serverId } }, { background: options.background ?? false });
export const createBackup = (serverId: string) => call(endpoints.backupCreate, { params: { serverId } });
export const restoreBackup = (serverId: string, backupId: string) => call(endpoints.backupRestore, { params: { serverId, backupId } });
export const lockBackup = (serverId: string, backupId: string, locked: boolean) =>
  call(endpoints.backupLock, { params: { serverId, backupId }, body: { locked } });
export const deleteBackup = (serverId: string, backupId: string) => call(endpoints.backupDelete, { params: { serverId, backupId } });
export const backupDownloadUrl = (serverId: string, backupId: string) =>
  `${settings.apiBaseUrl}${endpointUrl(endpoints.backupDownload, { params: { serverId, backupId } })}`;
