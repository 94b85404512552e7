import type { FileEntry } from '@spawnpoint/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { Button, buttonClass } from '../components/button.tsx';
import { CodeEditor } from '../components/code-editor.tsx';
import { ServerShell } from '../components/server-shell.tsx';
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
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-files', 'Browse, edit, upload and download the files of your server.');

type Upload = { total: number; loaded: number; files: number; done: number; current: string };
const isArchive = (name: string) => /\.(zip|tar|tar\.gz|tgz)$/i.test(name);

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
    const total = items.reduce((sum, i) => sum + i.file.size, 0);
    let finished = 0;
    setUpload({ total, loaded: 0, files: items.length, done: 0, current: items[0]?.path ?? '' });
    try {
      for (const [index, item] of items.entries()) {
        setUpload((u) => (u ? { ...u, current: item.path, done: index } : u));
        const target = joinPath(dir, item.path);
        // Folders of a dropped tree are made first, one level at a time.
        const folders = item.path.split('/').slice(0, -1);
        for (let i = 1; i <= folders.length; i++) await makeFolder(id, joinPath(dir, folders.slice(0, i).join('/'))).catch(() => undefined);
        await uploadFile(id, target, item.file, (loaded) => setUpload((u) => (u ? { ...u, loaded: finished + loaded } : u)));
        finished += item.file.size;
      }
      notify('success', 'Upload complete', `${items.length} file${items.length === 1 ? '' : 's'} uploaded.`);
    } catch {
      // The §8 handling showed what went wrong (the disk-limit dialog for DISK_LIMIT).
    } finally {
      setUpload(null);
      refresh();
    }
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
              <span key={i} className="flex items-center gap-1">
                <button
                  type="button"
                  className="rounded px-1 text-brand-700 hover:underline"
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
          <Button variant="secondary" onClick={() => fileInput.current?.click()}>
            Upload files
          </Button>
          <Button variant="secondary" onClick={() => folderInput.current?.click()}>
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
                onContinue: async (name) => {
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
                onContinue: async (name) => {
                  await saveFile(id, joinPath(dir, name), '');
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
            if (query.trim()) setResults(await searchFiles(id, query.trim()).catch(() => []));
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
            className="w-full max-w-sm rounded-md border border-slate-300 px-3 py-2 text-sm"
          />
          <Button type="submit" variant="secondary">
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
            <p className="text-sm">
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
                  className="font-mono text-brand-700 hover:underline"
                  onClick={() => {
                    setResults(null);
                    if (r.type === 'directory') go(r.path);
                    else setParams({ path: parentOf(r.path), edit: r.path });
                  }}
                >
                  {r.path}
                </button>
                <span className="text-slate-500">{r.type === 'file' ? formatBytes(r.size) : r.type}</span>
              </li>
            ))}
          </ul>
        ) : (
          <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white">
            <table className="w-full text-left text-sm">
              <thead className="border-b border-slate-200 text-xs uppercase text-slate-500">
                <tr>
                  <th className="w-8 p-3">
                    <span className="sr-only">Select</span>
                  </th>
                  <th className="p-3">Name</th>
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
                    return (
                      <tr key={entry.name} data-testid="file-row">
                        <td className="p-3">
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
                        <td className="p-3 font-mono">
                          {entry.type === 'directory' ? (
                            <button type="button" className="text-brand-700 hover:underline" onClick={() => go(full)}>
                              {entry.name}/
                            </button>
                          ) : entry.type === 'file' ? (
                            <button
                              type="button"
                              className="text-slate-900 hover:underline"
                              onClick={() => setParams({ path: dir, edit: full })}
                            >
                              {entry.name}
                            </button>
                          ) : (
                            <span className="text-slate-400" title="Links and special files cannot be opened">
                              {entry.name} ({entry.type})
                            </span>
                          )}
                        </td>
                        <td className="hidden p-3 tabular-nums text-slate-600 sm:table-cell">
                          {entry.type === 'file' ? formatBytes(entry.size) : '—'}
                        </td>
                        <td className="hidden p-3 text-slate-600 md:table-cell">
                          {new Date(entry.modifiedAt).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' })}
                        </td>
                        <td className="p-3">
                          <div className="flex justify-end gap-1">
                            {entry.type === 'file' && isArchive(entry.name) ? (
                              <Button
                                variant="ghost"
                                onClick={async () => {
                                  await extractArchive(id, full, dir);
                                  notify('success', 'Extracted', `${entry.name} was unpacked here.`);
                                  refresh();
                                }}
                              >
                                Extract
                              </Button>
                            ) : null}
                            {entry.type === 'file' || entry.type === 'directory' ? (
                              <a className={buttonClass('ghost')} href={downloadUrl(id, full)} download>
                                Download
                              </a>
                            ) : null}
                            <Button
                              variant="ghost"
                              onClick={() =>
                                openDialog('input', {
                                  title: `Rename or move ${entry.name}`,
                                  message: 'Give a new name, or a path such as /plugins/name to move it.',
                                  label: 'New name or path',
                                  initialValue: entry.name,
                                  onContinue: async (value) => {
                                    await renamePath(id, full, value.startsWith('/') ? value : joinPath(dir, value));
                                    refresh();
                                  },
                                })
                              }
                            >
                              Rename
                            </Button>
                            {entry.type === 'file' || entry.type === 'directory' ? (
                              <Button
                                variant="ghost"
                                aria-label={`Permissions of ${entry.name}: ${formatMode(entry.mode)}`}
                                onClick={() =>
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
                                  })
                                }
                              >
                                Permissions
                              </Button>
                            ) : null}
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

  useEffect(() => {
    readFile(serverId, path).then(
      (file) => {
        current.current = file.content;
        setContent(file.content);
      },
      (err: { message?: string }) => setError(err.message ?? 'This file cannot be opened.'),
    );
  }, [serverId, path]);

  async function save() {
    setSaving(true);
    try {
      await saveFile(serverId, path, current.current);
      setDirty(false);
      notify('success', 'Saved', path);
    } catch {
      // shown by the §8 handling
    } finally {
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
          <div className="flex gap-2">
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
              setDirty(true);
            }}
            onSave={() => void save()}
          />
        )}
      </div>
    </ServerShell>
  );
}

/** Permission bits as the three octal digits people type (644). */
function formatMode(mode: number): string {
  return mode.toString(8).padStart(3, '0');
}
