import { useCallback, useRef, useState } from 'react';
import { ApiFailure } from './api.ts';
import { handleApiError } from './api-errors.ts';
import { joinPath, makeFolder, uploadFile } from './files.ts';
import { notify } from './toasts.ts';
import { failedAncestor, foldersOf, uploadSummary, type UploadOutcome } from './upload-plan.ts';

/** A file to upload and its path relative to the folder it goes into ("pack/data/b.txt"). */
export type UploadItem = { file: File; path: string };
/** The upload under way, as the page shows it. */
export type UploadProgress = { total: number; loaded: number; files: number; done: number; current: string };

const failureMessage = (err: unknown) => (err instanceof ApiFailure ? err.message : 'Something went wrong.');

/** Files in a dropped folder, with their relative paths (drag and drop of folders). */
export async function filesFromDrop(items: DataTransferItemList): Promise<UploadItem[]> {
  const out: UploadItem[] = [];
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ file, path: `${prefix}${file.name}` });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const child of batch) await walk(child, `${prefix}${entry.name}/`);
      }
    }
  };
  for (const item of [...items]) {
    const entry = item.webkitGetAsEntry();
    if (entry) await walk(entry, '');
  }
  return out;
}

/**
 * Uploads of the files page: files or a folder tree into `dir`, one at a time, with progress; one toast
 * sums up what happened, then `onDone` (list the folder again).
 */
export function useUploads(serverId: string, dir: string, onDone: () => void) {
  const [upload, setUpload] = useState<UploadProgress | null>(null);
  // Set at once (state lands on the next render): a second drop or pick while one upload runs is refused.
  const uploading = useRef(false);

  const uploadAll = useCallback(
    async (items: UploadItem[]) => {
      if (!items.length) return;
      if (uploading.current) {
        notify('info', 'An upload is running', 'Wait for it to finish, then add more.');
        return;
      }
      uploading.current = true;
      const total = items.reduce((sum, i) => sum + i.file.size, 0);
      let finished = 0;
      const outcome: UploadOutcome = { uploaded: 0, foldersCreated: 0, failures: [], notSent: 0 };
      const failedFolders = new Set<string>();
      setUpload({ total, loaded: 0, files: items.length, done: 0, current: items[0]?.path ?? '' });
      try {
        // Every folder of the tree once, parents first, as mkdir -p: folders that exist already are fine.
        for (const folder of foldersOf(items.map((i) => i.path))) {
          // Inside a folder that could not be made: its files are counted as failed below.
          if (failedAncestor(folder, failedFolders)) {
            failedFolders.add(folder);
            continue;
          }
          try {
            outcome.foldersCreated += (await makeFolder(serverId, joinPath(dir, folder), { parents: true, background: true })).created;
          } catch (err) {
            failedFolders.add(folder);
            outcome.failures.push({ path: `${folder}/`, message: failureMessage(err) });
          }
        }
        for (const [index, item] of items.entries()) {
          setUpload((u) => (u ? { ...u, current: item.path, done: index } : u));
          const missingFolder = failedAncestor(item.path, failedFolders);
          if (missingFolder) {
            outcome.failures.push({ path: item.path, message: `Its folder ${missingFolder} could not be created.` });
            continue;
          }
          try {
            const onProgress = (loaded: number) => setUpload((u) => (u ? { ...u, loaded: finished + loaded } : u));
            // Background: failures are summed up in one toast at the end, not one "Whoopsie!" each.
            await uploadFile(serverId, joinPath(dir, item.path), item.file, onProgress, { background: true });
            outcome.uploaded++;
          } catch (err) {
            if (err instanceof ApiFailure && err.code === 'DISK_LIMIT') {
              // Nothing more fits: say so the usual way (the disk-limit dialog) and send no more.
              handleApiError(err);
              outcome.failures.push({ path: item.path, message: err.message });
              outcome.notSent = items.length - index - 1;
              break;
            }
            outcome.failures.push({ path: item.path, message: failureMessage(err) });
          }
          finished += item.file.size;
        }
      } finally {
        uploading.current = false;
        setUpload(null);
        onDone();
      }
      const summary = uploadSummary(outcome);
      notify(summary.type, summary.title, summary.message);
    },
    [serverId, dir, onDone],
  );

  return { upload, uploadAll };
}
