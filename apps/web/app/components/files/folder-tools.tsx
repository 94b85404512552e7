// The files page's tools: where the folder is, uploads, new files and folders, the selection, and search.
import type { FileEntry } from '@spawnpoint/contracts';
import { useRef, useState } from 'react';
import { Button } from '../button.tsx';
import { openDialog } from '../../lib/dialogs.ts';
import { archivePaths, deletePaths, joinPath, makeFolder, saveFile, searchFiles } from '../../lib/files.ts';
import { formatBytes } from '../../lib/servers.ts';
import { notify } from '../../lib/toasts.ts';
import { nameProblem } from '../../lib/typed-name.ts';
import type { UploadItem } from '../../lib/use-uploads.ts';

export type FoundFile = { path: string; type: FileEntry['type']; size: number };

/** Where this folder is (each part a way back up), and how much of the disk the server uses. */
export function FolderBar({
  dir,
  usage,
  onGo,
}: {
  dir: string;
  usage: { used: number; quota: number } | null;
  onGo: (path: string) => void;
}) {
  const crumbs = dir.split('/').filter(Boolean);
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <nav aria-label="Folder" className="flex flex-wrap items-center gap-1 font-mono text-sm">
        <button type="button" className="min-h-6 min-w-6 rounded px-1 text-brand-700 hover:underline" onClick={() => onGo('/')}>
          /
        </button>
        {crumbs.map((part, i) => (
          <span key={i} className="flex min-w-0 items-center gap-1">
            <button
              type="button"
              className="min-h-6 rounded px-1 text-left text-brand-700 wrap-anywhere hover:underline"
              onClick={() => onGo(`/${crumbs.slice(0, i + 1).join('/')}`)}
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
  );
}

/** Upload files, or a whole folder (its tree kept). */
export function UploadButtons({ busy, onFiles }: { busy: boolean; onFiles: (items: UploadItem[]) => Promise<void> }) {
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  return (
    <>
      <Button variant="secondary" busy={busy} onClick={() => fileInput.current?.click()}>
        Upload files
      </Button>
      <Button variant="secondary" busy={busy} onClick={() => folderInput.current?.click()}>
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
          void onFiles(files.map((file) => ({ file, path: file.name })));
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
          void onFiles(files.map((file) => ({ file, path: file.webkitRelativePath || file.name })));
        }}
      />
    </>
  );
}

/** Archive or delete what is selected. */
export function SelectionActions({
  serverId,
  dir,
  paths,
  onChanged,
}: {
  serverId: string;
  dir: string;
  paths: string[];
  onChanged: () => void;
}) {
  return (
    <>
      <Button
        variant="secondary"
        onClick={() =>
          openDialog('input', {
            title: 'Archive the selection',
            label: 'Archive name',
            initialValue: 'archive.tar.gz',
            onContinue: async (name) => {
              await archivePaths(serverId, paths, joinPath(dir, name.endsWith('.tar.gz') ? name : `${name}.tar.gz`));
              notify('success', 'Archive created');
              onChanged();
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
              await deletePaths(serverId, paths);
              notify('success', 'Deleted');
              onChanged();
            },
          })
        }
      >
        Delete ({paths.length})
      </Button>
    </>
  );
}

/** Search by file name in the whole server folder. */
export function SearchForm(props: {
  serverId: string;
  query: string;
  onQuery: (query: string) => void;
  searched: boolean;
  onResults: (results: FoundFile[] | null) => void;
}) {
  const { serverId, query, onQuery, searched, onResults } = props;
  const [searching, setSearching] = useState(false);
  return (
    <form
      className="flex gap-2"
      role="search"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!query.trim() || searching) return;
        setSearching(true);
        try {
          onResults(await searchFiles(serverId, query.trim()).catch(() => []));
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
        onChange={(e) => onQuery(e.target.value)}
        placeholder="Search by file name"
        className="w-full min-w-0 max-w-sm rounded-md border border-slate-300 px-3 py-2 text-sm"
      />
      <Button type="submit" variant="secondary" busy={searching}>
        Search
      </Button>
      {searched ? (
        <Button type="button" variant="ghost" onClick={() => onResults(null)}>
          Clear
        </Button>
      ) : null}
    </form>
  );
}

/** What a search found: a folder opens, a file opens in the editor. */
export function SearchResults({ query, results, onOpen }: { query: string; results: FoundFile[]; onOpen: (found: FoundFile) => void }) {
  return (
    <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white" aria-label="Search results">
      {results.length === 0 ? <li className="p-4 text-sm text-slate-600">No file name contains “{query}”.</li> : null}
      {results.map((r) => (
        <li key={r.path} className="flex justify-between gap-3 p-3 text-sm">
          <button
            type="button"
            className="min-w-0 text-left font-mono text-brand-700 wrap-anywhere hover:underline"
            onClick={() => onOpen(r)}
          >
            {r.path}
          </button>
          <span className="shrink-0 text-slate-500">{r.type === 'file' ? formatBytes(r.size) : r.type}</span>
        </li>
      ))}
    </ul>
  );
}

/** A new folder, or a new empty file (which opens in the editor). */
export function NewButtons(props: { serverId: string; dir: string; onFolderMade: () => void; onFileMade: (path: string) => void }) {
  const { serverId, dir, onFolderMade, onFileMade } = props;
  return (
    <>
      <Button
        variant="secondary"
        onClick={() =>
          openDialog('input', {
            title: 'New folder',
            label: 'Folder name',
            validate: (value) => nameProblem(value, 'folder name'),
            onContinue: async (name) => {
              await makeFolder(serverId, joinPath(dir, name));
              onFolderMade();
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
              await saveFile(serverId, joinPath(dir, name), '', { overwrite: false });
              onFileMade(joinPath(dir, name));
            },
          })
        }
      >
        New file
      </Button>
    </>
  );
}
