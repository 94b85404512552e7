import { fileModeText, visibleFileName, withoutDirectionControls, type FileEntry } from '@spawnpoint/contracts';
import { useState } from 'react';
import { openDialog } from '../lib/dialogs.ts';
import { changeMode, downloadUrl, extractArchive, joinPath, renamePath } from '../lib/files.ts';
import { formatBytes } from '../lib/servers.ts';
import { notify } from '../lib/toasts.ts';
import { nameProblem } from '../lib/typed-name.ts';
import { ActionMenu } from './action-menu.tsx';
import { Button, buttonClass } from './button.tsx';

const isArchive = (name: string) => /\.(zip|tar|tar\.gz|tgz)$/i.test(name);

/** Permission bits as the three octal digits people type (644). */
function formatMode(mode: number): string {
  return mode.toString(8).padStart(3, '0');
}

/**
 * One row of the file table: select, open (a folder) or edit (a file), and its actions — Extract for an
 * archive, Download, Rename and Permissions as buttons from 1024 px up and in the row's menu below.
 */
export function FileRow({
  serverId,
  dir,
  entry,
  selected,
  mayWrite,
  onSelect,
  onOpenFolder,
  onEdit,
  onChanged,
}: {
  serverId: string;
  dir: string;
  entry: FileEntry;
  selected: boolean;
  /** The caller may change files: otherwise only opening (read-only) and Download are offered. */
  mayWrite: boolean;
  onSelect: (checked: boolean) => void;
  onOpenFolder: (path: string) => void;
  onEdit: (path: string) => void;
  /** Something in the folder changed (renamed, extracted, new permissions): list it again. */
  onChanged: () => void;
}) {
  const full = joinPath(dir, entry.name);
  // Spelled out where direction controls would make it read as another name; spaces kept (white-space).
  const shown = visibleFileName(entry.name);
  const openable = entry.type === 'file' || entry.type === 'directory';
  const rename = () => askRename(serverId, dir, entry, onChanged);
  const permissions = () => askPermissions(serverId, full, entry, onChanged);
  return (
    <tr key={entry.name} data-testid="file-row">
      <td className="p-3 max-lg:pr-1">
        {mayWrite ? (
          <input type="checkbox" aria-label={`Select ${shown}`} checked={selected} onChange={(e) => onSelect(e.target.checked)} />
        ) : null}
      </td>
      <FileNameCell entry={entry} shown={shown} onOpen={() => (entry.type === 'directory' ? onOpenFolder(full) : onEdit(full))} />
      <td className="hidden whitespace-nowrap p-3 tabular-nums text-slate-600 sm:table-cell">
        {entry.type === 'file' ? formatBytes(entry.size) : '—'}
      </td>
      <td className="hidden p-3 text-slate-600 md:table-cell">
        {new Date(entry.modifiedAt).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' })}
      </td>
      <td className="p-3 max-lg:pl-1">
        <div className="flex items-center justify-end gap-1">
          {mayWrite && entry.type === 'file' && isArchive(entry.name) ? (
            <ExtractButton serverId={serverId} path={full} shown={shown} onChanged={onChanged} />
          ) : null}
          {/* Wide screens (lg, 1024 px, up): every action in the row, as buttons, as before. */}
          <div className="hidden lg:contents">
            {openable ? (
              <a className={buttonClass('ghost')} href={downloadUrl(serverId, full)} download>
                Download
              </a>
            ) : null}
            {mayWrite ? (
              <Button variant="ghost" onClick={rename}>
                Rename
              </Button>
            ) : null}
            {openable && mayWrite ? (
              <Button variant="ghost" aria-label={`Permissions of ${shown}: ${formatMode(entry.mode)}`} onClick={permissions}>
                Permissions
              </Button>
            ) : null}
          </div>
          {/* Phones and tablets: beside the name, size and date there is no room for them all, so they
              wait in the row's menu. Extract stays out: it is what an archive's row is for. */}
          <ActionMenu
            className="lg:hidden"
            label={`Actions for ${shown}`}
            actions={[
              ...(openable ? [{ key: 'download', label: 'Download', href: downloadUrl(serverId, full), download: true }] : []),
              ...(mayWrite ? [{ key: 'rename', label: 'Rename', onSelect: rename }] : []),
              ...(openable && mayWrite
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
}

/** The name: a folder opens, a file opens in the editor, anything else (a link, a special file) is only shown. */
function FileNameCell({ entry, shown, onOpen }: { entry: FileEntry; shown: string; onOpen: () => void }) {
  return (
    <td className="p-3 font-mono max-lg:px-2">
      {entry.type === 'directory' ? (
        <button type="button" className="text-left whitespace-pre-wrap text-brand-700 wrap-anywhere hover:underline" onClick={onOpen}>
          {shown}/
        </button>
      ) : entry.type === 'file' ? (
        <button type="button" className="text-left whitespace-pre-wrap text-slate-900 wrap-anywhere hover:underline" onClick={onOpen}>
          {shown}
        </button>
      ) : (
        <span className="whitespace-pre-wrap text-slate-400 wrap-anywhere" title="Links and special files cannot be opened">
          {shown} ({entry.type})
        </span>
      )}
    </td>
  );
}

/** Extract, for an archive: unpacked beside it, and the folder listed again. */
function ExtractButton({ serverId, path, shown, onChanged }: { serverId: string; path: string; shown: string; onChanged: () => void }) {
  const [extracting, setExtracting] = useState(false);
  return (
    // Narrower beside the menu (below lg), so the name keeps more of a phone's width.
    <Button
      variant="ghost"
      className="max-lg:px-2"
      busy={extracting}
      onClick={async () => {
        setExtracting(true);
        try {
          const { destination } = await extractArchive(serverId, path);
          notify('success', 'Extracted', `${shown} was unpacked into ${destination}.`);
          onChanged();
        } catch {
          // shown by the API client's failure handling
        } finally {
          setExtracting(false);
        }
      }}
    >
      Extract
    </Button>
  );
}

/** Asks for a new name or a path to move it to, and renames it. */
function askRename(serverId: string, dir: string, entry: FileEntry, onChanged: () => void): void {
  const full = joinPath(dir, entry.name);
  const shown = visibleFileName(entry.name);
  openDialog('input', {
    title: `Rename or move ${shown}`,
    message: 'Give a new name, or a path such as /plugins/name to move it.',
    label: 'New name or path',
    // Controls the user cannot see (and may not keep) are taken out of the name offered.
    initialValue: withoutDirectionControls(entry.name),
    validate: (value) => nameProblem(value, 'new name'),
    onContinue: async (name) => {
      await renamePath(serverId, full, name.startsWith('/') ? name : joinPath(dir, name));
      onChanged();
    },
  });
}

/** Asks for the permission digits, and sets them. */
function askPermissions(serverId: string, full: string, entry: FileEntry, onChanged: () => void): void {
  const shown = visibleFileName(entry.name);
  openDialog('input', {
    title: `Permissions of ${shown}`,
    message:
      'Three digits from 0 to 7 for owner, group and others: 4 read, 2 write, 1 run. For example 644 for a file, 755 for a folder or a script.',
    label: 'Permissions',
    initialValue: formatMode(entry.mode),
    validate: (value) => fileModeText.safeParse(value).error?.issues[0]?.message ?? null,
    onContinue: async (value) => {
      await changeMode(serverId, full, fileModeText.parse(value));
      notify('success', 'Permissions changed', `${shown} is now ${value.trim()}.`);
      onChanged();
    },
  });
}
