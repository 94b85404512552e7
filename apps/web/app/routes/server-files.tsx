import { FILE_LIST_MAX, type FileEntry } from '@spawnpoint/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { FileEditor } from '../components/file-editor.tsx';
import { FileRow } from '../components/file-row.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { UploadPanel } from '../components/upload-panel.tsx';
import { openDialog } from '../lib/dialogs.ts';
import { archivePaths, deletePaths, diskUsage, joinPath, listFiles, makeFolder, parentOf, saveFile, searchFiles } from '../lib/files.ts';
import { pageMeta } from '../lib/meta.ts';
import { formatBytes } from '../lib/servers.ts';
import { notify } from '../lib/toasts.ts';
import { nameProblem } from '../lib/typed-name.ts';
import { filesFromDrop, useUploads } from '../lib/use-uploads.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-files', 'Browse, edit, upload and download the files of your server.');

export default function ServerFiles() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const [params, setParams] = useSearchParams();
  const dir = params.get('path') ?? '/';
  const editing = params.get('edit');
  const [entries, setEntries] = useState<FileEntry[] | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dragging, setDragging] = useState(false);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<{ path: string; type: FileEntry['type']; size: number }[] | null>(null);
  const [usage, setUsage] = useState<{ used: number; quota: number } | null>(null);
  const [searching, setSearching] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  // Why the folder could not be listed (the node away, the files in storage while the server sleeps): said
  // where the list would be, never as an empty folder.
  const [listError, setListError] = useState<string | null>(null);
  const refresh = useCallback(() => {
    listFiles(id, dir).then(
      (listed) => {
        setListError(null);
        setEntries(listed);
      },
      (err: unknown) => {
        setListError(err instanceof Error ? err.message : 'This folder could not be listed.');
        setEntries([]);
      },
    );
    diskUsage(id).then(setUsage, () => undefined);
    setSelected(new Set());
  }, [id, dir]);
  useEffect(() => {
    if (load.status === 'ready' && !editing) refresh();
  }, [load.status, editing, refresh]);

  const go = (path: string) => setParams({ path });

  const { upload, uploadAll, cancel: cancelUpload } = useUploads(id, dir, refresh);
  // A viewer reads files but may not change them: no upload, new, rename, archive or delete is offered
  // (the API refuses them anyway), and the editor opens read-only.
  const mayWrite = load.status === 'ready' && load.server.permissions.includes('files.write');

  if (editing)
    return (
      <FileEditor serverId={id} load={load} path={editing} readOnly={!mayWrite} onClose={() => setParams({ path: parentOf(editing) })} />
    );

  const crumbs = dir.split('/').filter(Boolean);
  const paths = [...selected];
  return (
    <ServerShell serverId={id} load={load}>
      <div
        className={`space-y-4 rounded-xl ${dragging ? 'outline-2 outline-dashed outline-brand-600' : ''}`}
        onDragOver={(e) => {
          if (!mayWrite) return;
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={async (e) => {
          if (!mayWrite) return;
          e.preventDefault();
          setDragging(false);
          await uploadAll(await filesFromDrop(e.dataTransfer.items));
        }}
      >
        <div className="flex flex-wrap items-center justify-between gap-3">
          <nav aria-label="Folder" className="flex flex-wrap items-center gap-1 font-mono text-sm">
            <button type="button" className="min-h-6 min-w-6 rounded px-1 text-brand-700 hover:underline" onClick={() => go('/')}>
              /
            </button>
            {crumbs.map((part, i) => (
              <span key={i} className="flex min-w-0 items-center gap-1">
                <button
                  type="button"
                  className="min-h-6 rounded px-1 text-left text-brand-700 wrap-anywhere hover:underline"
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

        {load.status === 'ready' && !mayWrite ? (
          <p className="rounded-lg bg-slate-100 p-3 text-sm text-slate-700" role="note">
            Your role on this server can read and download files but not change them. Ask the owner for the administrator role to upload,
            edit or delete.
          </p>
        ) : null}
        <div className={mayWrite ? 'flex flex-wrap gap-2' : 'hidden'}>
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
                validate: (value) => nameProblem(value, 'folder name'),
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
                validate: (value) => nameProblem(value, 'file name'),
                onContinue: async (name) => {
                  // A new file never replaces one of the same name: that is refused with "… already exists".
                  await saveFile(id, joinPath(dir, name), '', { overwrite: false });
                  setParams({ path: dir, edit: joinPath(dir, name) });
                },
              })
            }
          >
            New file
          </Button>
          {paths.length && mayWrite ? (
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
          <UploadPanel upload={upload} onCancel={cancelUpload} />
        ) : mayWrite ? (
          <p className="hidden text-xs text-slate-500 pointer-fine:block">
            Tip: drop files or folders anywhere here to upload them into this folder.
          </p>
        ) : null}

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
                ) : listError ? (
                  <tr>
                    <td colSpan={5} className="p-6 text-center text-slate-700" data-testid="files-unavailable">
                      {listError}
                    </td>
                  </tr>
                ) : entries.length === 0 ? (
                  <tr>
                    <td colSpan={5} className="p-6 text-center text-slate-600">
                      {mayWrite ? 'This folder is empty. Upload files or drop them here.' : 'This folder is empty.'}
                    </td>
                  </tr>
                ) : (
                  entries.map((entry) => {
                    const full = joinPath(dir, entry.name);
                    return (
                      <FileRow
                        key={entry.name}
                        serverId={id}
                        dir={dir}
                        entry={entry}
                        selected={selected.has(full)}
                        mayWrite={mayWrite}
                        onSelect={(checked) =>
                          setSelected((s) => {
                            const next = new Set(s);
                            if (checked) next.add(full);
                            else next.delete(full);
                            return next;
                          })
                        }
                        onOpenFolder={go}
                        onEdit={(path) => setParams({ path: dir, edit: path })}
                        onChanged={refresh}
                      />
                    );
                  })
                )}
                {entries && entries.length >= FILE_LIST_MAX ? (
                  <tr>
                    <td colSpan={5} className="p-4 text-center text-sm text-slate-600" role="status">
                      This folder holds more than {FILE_LIST_MAX.toLocaleString('en-US')} entries: only that many are listed. Search finds
                      the others by name.
                    </td>
                  </tr>
                ) : null}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </ServerShell>
  );
}
