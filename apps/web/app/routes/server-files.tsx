import type { FileEntry } from '@spawnpoint/contracts';
import { useCallback, useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { FileEditor } from '../components/file-editor.tsx';
import { FileTable } from '../components/files/file-table.tsx';
import {
  FolderBar,
  NewButtons,
  SearchForm,
  SearchResults,
  SelectionActions,
  UploadButtons,
  type FoundFile,
} from '../components/files/folder-tools.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { UploadPanel } from '../components/upload-panel.tsx';
import { diskUsage, listFiles, parentOf } from '../lib/files.ts';
import { pageMeta } from '../lib/meta.ts';
import { filesFromDrop, useUploads } from '../lib/use-uploads.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-files', 'Browse, edit, upload and download the files of your server.');

export default function ServerFiles() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const [params, setParams] = useSearchParams();
  const dir = params.get('path') ?? '/';
  const editing = params.get('edit');
  const [dragging, setDragging] = useState(false);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<FoundFile[] | null>(null);

  const { entries, listError, usage, selected, setSelected, refresh } = useFolder(id, dir, load.status === 'ready' && !editing);

  const go = (path: string) => setParams({ path });

  const { upload, uploadAll, cancel: cancelUpload } = useUploads(id, dir, refresh);
  // A viewer reads files but may not change them: no upload, new, rename, archive or delete is offered
  // (the API refuses them anyway), and the editor opens read-only.
  const mayWrite = load.status === 'ready' && load.server.permissions.includes('files.write');

  if (editing)
    return (
      <FileEditor serverId={id} load={load} path={editing} readOnly={!mayWrite} onClose={() => setParams({ path: parentOf(editing) })} />
    );

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
        <FolderBar dir={dir} usage={usage} onGo={go} />

        {load.status === 'ready' && !mayWrite ? (
          <p className="rounded-lg bg-slate-100 p-3 text-sm text-slate-700" role="note">
            Your role on this server can read and download files but not change them. Ask the owner for the administrator role to upload,
            edit or delete.
          </p>
        ) : null}
        <div className={mayWrite ? 'flex flex-wrap gap-2' : 'hidden'}>
          <UploadButtons busy={upload !== null} onFiles={uploadAll} />
          <NewButtons serverId={id} dir={dir} onFolderMade={refresh} onFileMade={(path) => setParams({ path: dir, edit: path })} />
          {paths.length && mayWrite ? <SelectionActions serverId={id} dir={dir} paths={paths} onChanged={refresh} /> : null}
        </div>

        <SearchForm serverId={id} query={query} onQuery={setQuery} searched={results !== null} onResults={setResults} />

        {upload ? (
          <UploadPanel upload={upload} onCancel={cancelUpload} />
        ) : mayWrite ? (
          <p className="hidden text-xs text-slate-500 pointer-fine:block">
            Tip: drop files or folders anywhere here to upload them into this folder.
          </p>
        ) : null}

        {results ? (
          <SearchResults
            query={query}
            results={results}
            onOpen={(r) => {
              setResults(null);
              if (r.type === 'directory') go(r.path);
              else setParams({ path: parentOf(r.path), edit: r.path });
            }}
          />
        ) : (
          <FileTable
            serverId={id}
            dir={dir}
            entries={entries}
            listError={listError}
            mayWrite={mayWrite}
            selected={selected}
            onSelected={setSelected}
            onGo={go}
            onEdit={(path) => setParams({ path: dir, edit: path })}
            onChanged={refresh}
          />
        )}
      </div>
    </ServerShell>
  );
}

/**
 * The folder's entries and the disk usage, read when shown and again after a change; what is selected is
 * cleared with every read.
 */
function useFolder(id: string, dir: string, shown: boolean) {
  const [entries, setEntries] = useState<FileEntry[] | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [usage, setUsage] = useState<{ used: number; quota: number } | null>(null);
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
    if (shown) refresh();
  }, [shown, refresh]);
  return { entries, listError, usage, selected, setSelected, refresh };
}
