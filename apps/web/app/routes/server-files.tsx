import { validationMessages, type FileEntry } from '@spawnpoint/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useBlocker, useParams, useSearchParams } from 'react-router';
import { ActionMenu } from '../components/action-menu.tsx';
import { Button, buttonClass } from '../components/button.tsx';
import { CodeEditor } from '../components/code-editor.tsx';
import { Modal } from '../components/modal.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { ApiFailure } from '../lib/api.ts';
import { handleApiError } from '../lib/api-errors.ts';
import { openDialog } from '../lib/dialogs.ts';
import {
  archivePaths,
  deletePaths,
  diskUsage,
  downloadUrl,
  extractArchive,
  joinPath,
  listFiles,
  makeFolder,
  parentOf,
  readFile,
  renamePath,
  changeMode,
  saveFile,
  searchFiles,
  uploadFile,
} from '../lib/files.ts';
import { pageMeta } from '../lib/meta.ts';
import { formatBytes } from '../lib/servers.ts';
import { notify } from '../lib/toasts.ts';
import { failedAncestor, foldersOf, uploadSummary, type UploadOutcome } from '../lib/upload-plan.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-files', 'Browse, edit, upload and download the files of your server.');

type Upload = { total: number; loaded: number; files: number; done: number; current: string };
const isArchive = (name: string) => /\.(zip|tar|tar\.gz|tgz)$/i.test(name);

/**
 * A name typed into one of the page's dialogs, or null after saying (in the form rule's words) that it is
 * missing; the dialog stays open for another try. Blank would otherwise name the folder itself, and the
 * API's answer ("plugins already exists") would not tell the user what is wrong.
 */
function typedName(value: string, field: string): string | null {
  if (value.trim() && !/\/\s*$/.test(value)) return value;
  notify('warning', validationMessages.required(field));
  return null;
}
const failureMessage = (err: unknown) => (err instanceof ApiFailure ? err.message : 'Something went wrong.');

/** Files in a dropped folder, with their relative paths (drag and drop of folders). */
async function filesFromDrop(items: DataTransferItemList): Promise<{ file: File; path: string }[]> {
  const out: { file: File; path: string }[] = [];
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

export default function ServerFiles() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const [params, setParams] = useSearchParams();
  const dir = params.get('path') ?? '/';
  const editing = params.get('edit');
  const [entries, setEntries] = useState<FileEntry[] | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [upload, setUpload] = useState<Upload | null>(null);
  const [dragging, setDragging] = useState(false);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<{ path: string; type: FileEntry['type']; size: number }[] | null>(null);
  const [usage, setUsage] = useState<{ used: number; quota: number } | null>(null);
  const [searching, setSearching] = useState(false);
  const [extracting, setExtracting] = useState<string | null>(null);
  // Set at once (state lands on the next render): a second drop or pick while one upload runs is refused.
  const uploading = useRef(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const refresh = useCallback(() => {
    listFiles(id, dir).then(setEntries, () => setEntries([]));
    diskUsage(id).then(setUsage, () => undefined);
    setSelected(new Set());
  }, [id, dir]);
  useEffect(() => {
    if (load.status === 'ready' && !editing) refresh();
  }, [load.status, editing, refresh]);

  const go = (path: string) => setParams({ path });

  async function uploadAll(items: { file: File; path: string }[]) {
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
          outcome.foldersCreated += (await makeFolder(id, joinPath(dir, folder), { parents: true, background: true })).created;
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
          await uploadFile(id, joinPath(dir, item.path), item.file, onProgress, { background: true });
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
      refresh();
    }
    const summary = uploadSummary(outcome);
    notify(summary.type, summary.title, summary.message);
  }

  if (editing) return <Editor serverId={id} load={load} path={editing} onClose={() => setParams({ path: parentOf(editing) })} />;

  const crumbs = dir.split('/').filter(Boolean);
  const paths = [...selected];
  return (
    <ServerShell serverId={id} load={load}>
      <div
        className={`space-y-4 rounded-xl ${dragging ? 'outline-2 outline-dashed outline-brand-600' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={async (e) => {
          e.preventDefault();
          setDragging(false);
          await uploadAll(await filesFromDrop(e.dataTransfer.items));
        }}
      >
        <div className="flex flex-wrap items-center justify-between gap-3">
          <nav aria-label="Folder" className="flex flex-wrap items-center gap-1 font-mono text-sm">
            <button type="button" className="rounded px-1 text-brand-700 hover:underline" onClick={() => go('/')}>
              /
            </button>
            {crumbs.map((part, i) => (
              <span key={i} className="flex min-w-0 items-center gap-1">
                <button
                  type="button"
                  className="rounded px-1 text-left text-brand-700 wrap-anywhere hover:underline"
                  onClick={() => go(`/${crumbs.slice(0, i + 1).join('/')}`)}
                >
                  {part}
                </button>
                /
              </span>
            ))}
          </nav>
          {usage ? (
            <p className="text-sm text-slate-600" data-testid="disk-usage">
              {formatBytes(usage.used)} of {formatBytes(usage.quota)} used
            </p>
          ) : null}
        </div>

        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" busy={upload !== null} onClick={() => fileInput.current?.click()}>
            Upload files
          </Button>
          <Button variant="secondary" busy={upload !== null} onClick={() => folderInput.current?.click()}>
            Upload a folder
          </Button>
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            aria-label="Files to upload"
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              void uploadAll(files.map((file) => ({ file, path: file.name })));
            }}
          />
          <input
            ref={folderInput}
            type="file"
            hidden
            aria-label="Folder to upload"
            {...{ webkitdirectory: '' }}
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              void uploadAll(files.map((file) => ({ file, path: file.webkitRelativePath || file.name })));
            }}
          />
          <Button
            variant="secondary"
            onClick={() =>
              openDialog('input', {
                title: 'New folder',
                label: 'Folder name',
                onContinue: async (value) => {
                  const name = typedName(value, 'folder name');
                  if (name === null) throw new Error('name required');
                  await makeFolder(id, joinPath(dir, name));
                  refresh();
                },
              })
            }
          >
            New folder
          </Button>
          <Button
            variant="secondary"
            onClick={() =>
              openDialog('input', {
                title: 'New file',
                label: 'File name',
                onContinue: async (value) => {
                  const name = typedName(value, 'file name');
                  if (name === null) throw new Error('name required');
                  // A new file never replaces one of the same name: that is refused with "… already exists".
                  await saveFile(id, joinPath(dir, name), '', { overwrite: false });
                  setParams({ path: dir, edit: joinPath(dir, name) });
                },
              })
            }
          >
            New file
          </Button>
          {paths.length ? (
            <>
              <Button
                variant="secondary"
                onClick={() =>
                  openDialog('input', {
                    title: 'Archive the selection',
                    label: 'Archive name',
                    initialValue: 'archive.tar.gz',
                    onContinue: async (name) => {
                      await archivePaths(id, paths, joinPath(dir, name.endsWith('.tar.gz') ? name : `${name}.tar.gz`));
                      notify('success', 'Archive created');
                      refresh();
                    },
                  })
                }
              >
                Archive ({paths.length})
              </Button>
              <Button
                variant="danger"
                onClick={() =>
                  openDialog('confirm', {
                    title: `Delete ${paths.length} item${paths.length === 1 ? '' : 's'}?`,
                    message: 'Deleted files and folders cannot be recovered, except from a backup.',
                    confirmLabel: 'Delete',
                    danger: true,
                    onConfirm: async () => {
                      await deletePaths(id, paths);
                      notify('success', 'Deleted');
                      refresh();
                    },
                  })
                }
              >
                Delete ({paths.length})
              </Button>
            </>
          ) : null}
        </div>

        <form
          className="flex gap-2"
          role="search"
          onSubmit={async (e) => {
            e.preventDefault();
            if (!query.trim() || searching) return;
            setSearching(true);
            try {
              setResults(await searchFiles(id, query.trim()).catch(() => []));
            } finally {
              setSearching(false);
            }
          }}
        >
          <label htmlFor="file-search" className="sr-only">
            Search by file name
          </label>
          <input
            id="file-search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Search by file name"
            className="w-full min-w-0 max-w-sm rounded-md border border-slate-300 px-3 py-2 text-sm"
          />
          <Button type="submit" variant="secondary" busy={searching}>
            Search
          </Button>
          {results ? (
            <Button type="button" variant="ghost" onClick={() => setResults(null)}>
              Clear
            </Button>
          ) : null}
        </form>

        {upload ? (
          <div role="status" aria-live="polite" className="rounded-lg border border-slate-200 bg-white p-4">
            <p className="text-sm wrap-anywhere">
              Uploading {upload.current} ({upload.done + 1} of {upload.files}) — {formatBytes(upload.loaded)} of {formatBytes(upload.total)}
            </p>
            <progress
              className="mt-2 h-2 w-full accent-brand-600"
              max={upload.total || 1}
              value={upload.loaded}
              aria-label="Upload progress"
            />
          </div>
        ) : (
          <p className="text-xs text-slate-500">Tip: drop files or folders anywhere here to upload them into this folder.</p>
        )}

        {results ? (
          <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white" aria-label="Search results">
            {results.length === 0 ? <li className="p-4 text-sm text-slate-600">No file name contains “{query}”.</li> : null}
            {results.map((r) => (
              <li key={r.path} className="flex justify-between gap-3 p-3 text-sm">
                <button
                  type="button"
                  className="min-w-0 text-left font-mono text-brand-700 wrap-anywhere hover:underline"
                  onClick={() => {
                    setResults(null);
                    if (r.type === 'directory') go(r.path);
                    else setParams({ path: parentOf(r.path), edit: r.path });
                  }}
                >
                  {r.path}
                </button>
                <span className="shrink-0 text-slate-500">{r.type === 'file' ? formatBytes(r.size) : r.type}</span>
              </li>
            ))}
          </ul>
        ) : (
          // No scroll box below lg: names wrap and the actions sit in a menu there, so the table fits, and
          // a scroll box would clip the open menu of the last rows. Cells give up some padding there
          // (max-lg:pr-1, max-lg:px-2, max-lg:pl-1) so that server.properties fits on one line at 360 px,
          // even beside an archive's Extract.
          <div className="rounded-xl border border-slate-200 bg-white lg:overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="border-b border-slate-200 text-xs uppercase text-slate-500">
                <tr>
                  <th className="w-8 p-3">
                    <span className="sr-only">Select</span>
                  </th>
                  <th className="p-3 max-lg:px-2">Name</th>
                  <th className="hidden p-3 sm:table-cell">Size</th>
                  <th className="hidden p-3 md:table-cell">Modified</th>
                  <th className="p-3 text-right">Actions</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {dir !== '/' ? (
                  <tr>
                    <td />
                    <td className="p-3" colSpan={4}>
                      <button type="button" className="font-mono text-brand-700 hover:underline" onClick={() => go(parentOf(dir))}>
                        ..
                      </button>
                    </td>
                  </tr>
                ) : null}
                {entries === null ? (
                  <tr>
                    <td colSpan={5} className="p-6 text-center text-slate-500" role="status">
                      Loading…
                    </td>
                  </tr>
                ) : entries.length === 0 ? (
                  <tr>
                    <td colSpan={5} className="p-6 text-center text-slate-600">
                      This folder is empty. Upload files or drop them here.
                    </td>
                  </tr>
                ) : (
                  entries.map((entry) => {
                    const full = joinPath(dir, entry.name);
                    const openable = entry.type === 'file' || entry.type === 'directory';
                    const rename = () =>
                      openDialog('input', {
                        title: `Rename or move ${entry.name}`,
                        message: 'Give a new name, or a path such as /plugins/name to move it.',
                        label: 'New name or path',
                        initialValue: entry.name,
                        onContinue: async (value) => {
                          const name = typedName(value, 'new name');
                          if (name === null) throw new Error('name required');
                          await renamePath(id, full, name.startsWith('/') ? name : joinPath(dir, name));
                          refresh();
                        },
                      });
                    const permissions = () =>
                      openDialog('input', {
                        title: `Permissions of ${entry.name}`,
                        message:
                          'Three digits from 0 to 7 for owner, group and others: 4 read, 2 write, 1 run. For example 644 for a file, 755 for a folder or a script.',
                        label: 'Permissions',
                        initialValue: formatMode(entry.mode),
                        onContinue: async (value) => {
                          if (!/^[0-7]{3}$/.test(value.trim())) {
                            notify('warning', 'Permissions', 'Use three digits from 0 to 7, such as 644.');
                            throw new Error('invalid mode');
                          }
                          await changeMode(id, full, parseInt(value.trim(), 8));
                          notify('success', 'Permissions changed', `${entry.name} is now ${value.trim()}.`);
                          refresh();
                        },
                      });
                    return (
                      <tr key={entry.name} data-testid="file-row">
                        <td className="p-3 max-lg:pr-1">
                          <input
                            type="checkbox"
                            aria-label={`Select ${entry.name}`}
                            checked={selected.has(full)}
                            onChange={(e) =>
                              setSelected((s) => {
                                const next = new Set(s);
                                if (e.target.checked) next.add(full);
                                else next.delete(full);
                                return next;
                              })
                            }
                          />
                        </td>
                        <td className="p-3 font-mono max-lg:px-2">
                          {entry.type === 'directory' ? (
                            <button
                              type="button"
                              className="text-left text-brand-700 wrap-anywhere hover:underline"
                              onClick={() => go(full)}
                            >
                              {entry.name}/
                            </button>
                          ) : entry.type === 'file' ? (
                            <button
                              type="button"
                              className="text-left text-slate-900 wrap-anywhere hover:underline"
                              onClick={() => setParams({ path: dir, edit: full })}
                            >
                              {entry.name}
                            </button>
                          ) : (
                            <span className="text-slate-400 wrap-anywhere" title="Links and special files cannot be opened">
                              {entry.name} ({entry.type})
                            </span>
                          )}
                        </td>
                        <td className="hidden whitespace-nowrap p-3 tabular-nums text-slate-600 sm:table-cell">
                          {entry.type === 'file' ? formatBytes(entry.size) : '—'}
                        </td>
                        <td className="hidden p-3 text-slate-600 md:table-cell">
                          {new Date(entry.modifiedAt).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' })}
                        </td>
                        <td className="p-3 max-lg:pl-1">
                          <div className="flex items-center justify-end gap-1">
                            {entry.type === 'file' && isArchive(entry.name) ? (
                              // Narrower beside the menu (below lg), so the name keeps more of a phone's width.
                              <Button
                                variant="ghost"
                                className="max-lg:px-2"
                                busy={extracting === full}
                                onClick={async () => {
                                  setExtracting(full);
                                  try {
                                    await extractArchive(id, full, dir);
                                    notify('success', 'Extracted', `${entry.name} was unpacked here.`);
                                    refresh();
                                  } catch {
                                    // shown by the §8 handling
                                  } finally {
                                    setExtracting(null);
                                  }
                                }}
                              >
                                Extract
                              </Button>
                            ) : null}
                            {/* Wide screens (lg, 1024 px, up): every action in the row, as buttons, as before. */}
                            <div className="hidden lg:contents">
                              {openable ? (
                                <a className={buttonClass('ghost')} href={downloadUrl(id, full)} download>
                                  Download
                                </a>
                              ) : null}
                              <Button variant="ghost" onClick={rename}>
                                Rename
                              </Button>
                              {openable ? (
                                <Button
                                  variant="ghost"
                                  aria-label={`Permissions of ${entry.name}: ${formatMode(entry.mode)}`}
                                  onClick={permissions}
                                >
                                  Permissions
                                </Button>
                              ) : null}
                            </div>
                            {/* Phones and tablets: beside the name, size and date there is no room for them all, so they
                                wait in the row's menu. Extract stays out: it is what an archive's row is for. */}
                            <ActionMenu
                              className="lg:hidden"
                              label={`Actions for ${entry.name}`}
                              actions={[
                                ...(openable ? [{ key: 'download', label: 'Download', href: downloadUrl(id, full), download: true }] : []),
                                { key: 'rename', label: 'Rename', onSelect: rename },
                                ...(openable
                                  ? [
                                      {
                                        key: 'permissions',
                                        label: (
                                          <>
                                            Permissions <span className="font-mono text-slate-500">{formatMode(entry.mode)}</span>
                                          </>
                                        ),
                                        onSelect: permissions,
                                      },
                                    ]
                                  : []),
                              ]}
                            />
                          </div>
                        </td>
                      </tr>
                    );
                  })
                )}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </ServerShell>
  );
}

function Editor({
  serverId,
  load,
  path,
  onClose,
}: {
  serverId: string;
  load: ReturnType<typeof useServer>;
  path: string;
  onClose: () => void;
}) {
  const [content, setContent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [dirty, setDirty] = useState(false);
  const current = useRef('');
  // What the file on the server holds as far as we know: undoing back to it is no unsaved change.
  const saved = useRef('');
  const inFlight = useRef(false);

  useEffect(() => {
    readFile(serverId, path).then(
      (file) => {
        current.current = file.content;
        saved.current = file.content;
        setContent(file.content);
      },
      (err: { message?: string }) => setError(err.message ?? 'This file cannot be opened.'),
    );
  }, [serverId, path]);

  // Leaving with unsaved changes asks first: in-app navigation (tabs, links, Close, Back) through the
  // router's blocker, reload and closing the tab through the browser's own beforeunload prompt.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty && (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search),
  );
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  async function save() {
    // Ctrl-S while a save is on its way would send it twice.
    if (inFlight.current) return;
    inFlight.current = true;
    setSaving(true);
    const text = current.current;
    try {
      await saveFile(serverId, path, text);
      saved.current = text;
      // Typing while the save was on its way is still unsaved.
      setDirty(current.current !== text);
      notify('success', 'Saved', path);
    } catch {
      // shown by the §8 handling
    } finally {
      inFlight.current = false;
      setSaving(false);
    }
  }

  return (
    <ServerShell serverId={serverId} load={load}>
      <div className="space-y-3">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 className="break-all font-mono text-sm">
            {path}
            {dirty ? <span className="ml-2 text-amber-600">(unsaved)</span> : null}
          </h2>
          <div className="flex flex-wrap gap-2">
            <a className={buttonClass('ghost')} href={downloadUrl(serverId, path)} download>
              Download
            </a>
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
            <Button onClick={() => void save()} busy={saving} disabled={content === null}>
              Save
            </Button>
          </div>
        </div>
        {error ? (
          <p className="rounded-lg bg-amber-50 p-4 text-sm text-amber-900">
            {error}{' '}
            <Link to="#" onClick={onClose} className="font-semibold underline">
              Back to the folder
            </Link>
          </p>
        ) : content === null ? (
          <p role="status">Loading…</p>
        ) : (
          <CodeEditor
            value={content}
            fileName={path}
            onChange={(v) => {
              current.current = v;
              setDirty(v !== saved.current);
            }}
            onSave={() => void save()}
          />
        )}
      </div>
      {blocker.state === 'blocked' ? (
        <Modal title="Leave without saving?" onCancel={() => blocker.reset()}>
          <p className="text-slate-600">
            Your changes to <span className="wrap-anywhere font-mono">{path}</span> are not saved. Leaving now loses them.
          </p>
          <div className="mt-6 flex flex-wrap justify-end gap-3">
            <Button variant="secondary" onClick={() => blocker.reset()}>
              Cancel
            </Button>
            <Button variant="danger" onClick={() => blocker.proceed()}>
              Leave without saving
            </Button>
          </div>
        </Modal>
      ) : null}
    </ServerShell>
  );
}

/** Permission bits as the three octal digits people type (644). */
function formatMode(mode: number): string {
  return mode.toString(8).padStart(3, '0');
}
