// The files page's table: the way up, one row per entry, and what the folder holds when it cannot be listed.
import { FILE_LIST_MAX, type FileEntry } from '@spawnpoint/contracts';
import { FileRow } from '../file-row.tsx';
import { joinPath, parentOf } from '../../lib/files.ts';

/** The folder's entries, one row each, with the way up and what is said when there are none. */
export function FileTable(props: {
  serverId: string;
  dir: string;
  entries: FileEntry[] | null;
  listError: string | null;
  mayWrite: boolean;
  selected: Set<string>;
  onSelected: (change: (selected: Set<string>) => Set<string>) => void;
  onGo: (path: string) => void;
  onEdit: (path: string) => void;
  onChanged: () => void;
}) {
  const { serverId, dir, entries, listError, mayWrite, selected, onSelected, onGo, onEdit, onChanged } = props;
  return (
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
                <button type="button" className="font-mono text-brand-700 hover:underline" onClick={() => onGo(parentOf(dir))}>
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
                  serverId={serverId}
                  dir={dir}
                  entry={entry}
                  selected={selected.has(full)}
                  mayWrite={mayWrite}
                  onSelect={(checked) =>
                    onSelected((s) => {
                      const next = new Set(s);
                      if (checked) next.add(full);
                      else next.delete(full);
                      return next;
                    })
                  }
                  onOpenFolder={onGo}
                  onEdit={onEdit}
                  onChanged={onChanged}
                />
              );
            })
          )}
          {entries && entries.length >= FILE_LIST_MAX ? (
            <tr>
              <td colSpan={5} className="p-4 text-center text-sm text-slate-600" role="status">
                This folder holds more than {FILE_LIST_MAX.toLocaleString('en-US')} entries: only that many are listed. Search finds the
                others by name.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
