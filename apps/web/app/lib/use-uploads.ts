import type { FileEntry } from '@spawnpoint/contracts';
import { useCallback, useRef, useState } from 'react';
import { ApiFailure } from './api.ts';
import { handleApiError } from './api-errors.ts';
import { dialogStore, openDialog, type ConflictAnswer, type UploadConflictOptions } from './dialogs.ts';
import { joinPath, listFiles, makeFolder, uploadFile, UploadCancelled } from './files.ts';
import { notify } from './toasts.ts';
import { createSpeedMeter, secondsLeft } from './upload-eta.ts';
import {
  emptyOutcome,
  failedAncestor,
  foldersOf,
  keepBothName,
  splitPath,
  uploadSummary,
  withName,
  type ConflictChoice,
  type UploadOutcome,
} from './upload-plan.ts';

/** A file to upload and its path relative to the folder it goes into ("pack/data/b.txt"). */
export type UploadItem = { file: File; path: string };
/** The upload under way, as the page shows it: first the check for names in use, then the sending. */
export type UploadProgress = {
  phase: 'checking' | 'sending';
  total: number;
  loaded: number;
  files: number;
  done: number;
  current: string;
  /** Bytes per second over the last seconds, and the seconds left at that speed (null: not known yet). */
  speed: number | null;
  secondsLeft: number | null;
};

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
 * Asks about one name in use through the global dialog; null when the user cancels the upload there. The
 * dialog closing any other way (Escape, leaving the page, another dialog) is a cancel too, never a hang.
 */
function askAboutConflict(options: Omit<UploadConflictOptions, 'onAnswer'>): Promise<ConflictAnswer | null> {
  return new Promise((resolve) => {
    let settled = false;
    let unsubscribe = () => {};
    const settle = (answer: ConflictAnswer | null) => {
      if (settled) return;
      settled = true;
      unsubscribe();
      resolve(answer);
    };
    const dialog: UploadConflictOptions = { ...options, onAnswer: settle };
    openDialog('upload-conflict', dialog);
    if (dialogStore.get()?.options !== dialog) return settle(null);
    unsubscribe = dialogStore.subscribe(() => {
      if (dialogStore.get()?.options !== dialog) settle(null);
    });
  });
}

/** The names in each folder an upload writes into (by path relative to the page's folder; "" is that folder). */
type Listings = Map<string, Map<string, FileEntry>>;

/**
 * Lists the folders of the upload that exist already, through the list API: the page's folder, then each
 * nested folder that its parent's listing shows as a folder (parents first). Asked afresh each time, not
 * taken from the page's listing: that one may be older than the upload that just finished (a second upload
 * at once would not see the names the first one wrote, and replace them without asking).
 */
async function listTargets(serverId: string, dir: string, folders: string[]): Promise<Listings> {
  const byName = (entries: FileEntry[]) => new Map(entries.map((e) => [e.name, e]));
  const listings: Listings = new Map([['', byName(await listFiles(serverId, dir, { background: true }))]]);
  for (const folder of folders) {
    const { folder: parent, name } = splitPath(folder);
    if (listings.get(parent)?.get(name)?.type !== 'directory') continue;
    listings.set(folder, byName(await listFiles(serverId, joinPath(dir, folder), { background: true })));
  }
  return listings;
}

/** A file and where it goes in the page's folder; `replaces`: the owner chose to replace a file there. */
type Send = { item: UploadItem; path: string; replaces: boolean };

/**
 * 1. Which names are taken, asked about before anything is sent (Replace, Keep both, Skip; or the same for
 * all that remain). Cancelling there aborts the upload.
 */
async function askConflicts(
  dir: string,
  items: UploadItem[],
  existing: (path: string) => FileEntry | undefined,
  abort: AbortController,
): Promise<Map<UploadItem, ConflictChoice>> {
  const conflicts = items.filter((i) => existing(i.path));
  const choices = new Map<UploadItem, ConflictChoice>();
  let forAll: ConflictChoice | null = null;
  for (const [index, item] of conflicts.entries()) {
    if (abort.signal.aborted) break;
    const there = existing(item.path);
    if (!there) continue;
    if (!forAll) {
      const { folder, name } = splitPath(item.path);
      const answer = await askAboutConflict({
        name,
        folder: joinPath(dir, folder),
        existing: there,
        uploadSize: item.file.size,
        remaining: conflicts.length - index - 1,
      });
      if (!answer) {
        abort.abort();
        break;
      }
      if (answer.applyToAll) forAll = answer.choice;
      choices.set(item, answer.choice);
    } else choices.set(item, forAll);
  }
  return choices;
}

/**
 * 2. Where each file goes: skipped ones nowhere, "Keep both" the next free "name (n).ext" among what is
 * there and what this upload writes.
 */
function planSends(items: UploadItem[], choices: Map<UploadItem, ConflictChoice>, listings: Listings, outcome: UploadOutcome): Send[] {
  const taken = new Map<string, Set<string>>();
  const takenIn = (folder: string) => {
    let names = taken.get(folder);
    if (!names) {
      names = new Set([
        ...(listings.get(folder)?.keys() ?? []),
        ...items
          .map((i) => splitPath(i.path))
          .filter((p) => p.folder === folder)
          .map((p) => p.name),
      ]);
      taken.set(folder, names);
    }
    return names;
  };
  const sends: Send[] = [];
  for (const item of items) {
    const choice = choices.get(item);
    if (choice === 'skip') {
      outcome.skipped++;
    } else if (choice === 'keep-both') {
      const { folder, name } = splitPath(item.path);
      const names = takenIn(folder);
      const free = keepBothName(name, names);
      names.add(free);
      sends.push({ item, path: withName(item.path, free), replaces: false });
    } else sends.push({ item, path: item.path, replaces: choice === 'replace' });
  }
  return sends;
}

/** 3. Every folder of the tree once, parents first, as mkdir -p: folders that exist already are fine. */
async function makeFolders(
  serverId: string,
  dir: string,
  sends: Send[],
  abort: AbortController,
  outcome: UploadOutcome,
): Promise<Set<string>> {
  const failedFolders = new Set<string>();
  for (const folder of foldersOf(sends.map((s) => s.path))) {
    if (abort.signal.aborted) break;
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
  return failedFolders;
}

/**
 * Notes a file that was not sent, and whether the upload stops there: cancelled (the server keeps nothing
 * of it, and nothing more is sent) or the disk full (said the usual way, the disk-limit dialog).
 */
function recordFailure(err: unknown, path: string, after: number, outcome: UploadOutcome): 'stop' | 'go-on' {
  if (err instanceof UploadCancelled) {
    outcome.cancelled = { file: path };
    outcome.notSent = after;
    return 'stop';
  }
  if (err instanceof ApiFailure && err.code === 'DISK_LIMIT') {
    handleApiError(err);
    outcome.failures.push({ path, message: err.message });
    outcome.notSent = after;
    return 'stop';
  }
  outcome.failures.push({ path, message: failureMessage(err) });
  return 'go-on';
}

/**
 * Uploads of the files page: files or a folder tree into `dir`. Names in use are asked about first
 * (Replace, Keep both, Skip); then files go one at a time, with progress, speed and time left, until done
 * or `cancel()`. One toast sums up what happened, then `onDone` (list the folder again).
 */
export function useUploads(serverId: string, dir: string, onDone: () => void) {
  const [upload, setUpload] = useState<UploadProgress | null>(null);
  // Set at once (state lands on the next render): a second drop or pick while one upload runs is refused.
  const uploading = useRef(false);
  const controller = useRef<AbortController | null>(null);

  const cancel = useCallback(() => controller.current?.abort(), []);

  const uploadAll = useCallback(
    async (items: UploadItem[]) => {
      if (!items.length) return;
      if (uploading.current) {
        notify('info', 'An upload is running', 'Wait for it to finish, then add more.');
        return;
      }
      uploading.current = true;
      const abort = new AbortController();
      controller.current = abort;
      const outcome = emptyOutcome();
      const progress = { total: 0, loaded: 0, files: items.length, done: 0, current: items[0]?.path ?? '', speed: null, secondsLeft: null };
      setUpload({ phase: 'checking', ...progress });
      try {
        // 1. Which names are taken, asked about before anything is sent.
        let listings: Listings;
        try {
          listings = await listTargets(serverId, dir, foldersOf(items.map((i) => i.path)));
        } catch (err) {
          notify('warning', 'Upload not started', `Could not check which names are in use: ${failureMessage(err)} Nothing was uploaded.`);
          return;
        }
        const existing = (path: string) => {
          const { folder, name } = splitPath(path);
          return listings.get(folder)?.get(name);
        };
        const choices = await askConflicts(dir, items, existing, abort);
        if (abort.signal.aborted) {
          notify('info', 'Upload cancelled', 'Nothing was uploaded.');
          return;
        }

        // 2. Where each file goes.
        const sends = planSends(items, choices, listings, outcome);

        // 3. Every folder of the tree once, parents first, as mkdir -p: folders that exist already are fine.
        const total = sends.reduce((sum, s) => sum + s.item.file.size, 0);
        setUpload({ phase: 'sending', ...progress, total, files: sends.length, current: sends[0]?.path ?? '' });
        const failedFolders = await makeFolders(serverId, dir, sends, abort, outcome);

        // 4. The files, one at a time.
        const meter = createSpeedMeter();
        let finished = 0;
        meter.add(performance.now(), 0);
        for (const [index, send] of sends.entries()) {
          if (abort.signal.aborted) {
            outcome.cancelled = {};
            outcome.notSent = sends.length - index;
            break;
          }
          setUpload((u) => (u ? { ...u, current: send.path, done: index } : u));
          const missingFolder = failedAncestor(send.path, failedFolders);
          if (missingFolder) {
            outcome.failures.push({ path: send.path, message: `Its folder ${missingFolder} could not be created.` });
            finished += send.item.file.size;
            continue;
          }
          try {
            const onProgress = (loaded: number) => {
              const sent = finished + loaded;
              meter.add(performance.now(), sent);
              const speed = meter.speed();
              setUpload((u) => (u ? { ...u, loaded: sent, speed, secondsLeft: secondsLeft(total - sent, speed) } : u));
            };
            // Background: failures are summed up in one toast at the end, not one "Whoopsie!" each. Only a
            // name the user chose to replace is overwritten: one that appeared since the check is refused.
            await uploadFile(serverId, joinPath(dir, send.path), send.item.file, onProgress, {
              background: true,
              signal: abort.signal,
              overwrite: send.replaces,
            });
            if (send.replaces) outcome.replaced++;
            else outcome.uploaded++;
          } catch (err) {
            if (recordFailure(err, send.path, sends.length - index - 1, outcome) === 'stop') break;
          }
          finished += send.item.file.size;
        }
        const summary = uploadSummary(outcome);
        notify(summary.type, summary.title, summary.message);
      } finally {
        uploading.current = false;
        controller.current = null;
        setUpload(null);
        onDone();
      }
    },
    [serverId, dir, onDone],
  );

  return { upload, uploadAll, cancel };
}
