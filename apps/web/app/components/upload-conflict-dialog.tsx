import { useState } from 'react';
import { closeDialog, type ConflictAnswer, type DialogOptionsByName } from '../lib/dialogs.ts';
import { formatBytes } from '../lib/servers.ts';
import type { ConflictChoice } from '../lib/upload-plan.ts';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';

const when = (iso: string) => new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/**
 * Asked before an upload sends anything, once per file whose name is taken, as a desktop file manager asks:
 * Replace, Keep both (uploads it as "name (1).ext"), Skip; "Apply to all" answers the conflicts after it
 * too. Cancel (or Escape) cancels the whole upload: nothing is sent.
 */
export function UploadConflictDialog({ name, folder, existing, uploadSize, remaining, onAnswer }: DialogOptionsByName['upload-conflict']) {
  const [applyToAll, setApplyToAll] = useState(false);
  const answer = (choice: ConflictChoice) => {
    const result: ConflictAnswer = { choice, applyToAll };
    onAnswer(result);
    closeDialog();
  };
  const what = existing.type === 'directory' ? 'A folder' : existing.type === 'file' ? 'A file' : 'Something';
  return (
    <Modal title={`${name} already exists`}>
      <p className="text-slate-600">
        {what} named <span className="font-mono wrap-anywhere">{name}</span> is already in{' '}
        <span className="font-mono wrap-anywhere">{folder}</span>.
      </p>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm text-slate-600">
        <dt className="font-medium text-slate-700">There now</dt>
        <dd>
          {existing.type === 'file' ? `${formatBytes(existing.size)}, ` : ''}modified {when(existing.modifiedAt)}
        </dd>
        <dt className="font-medium text-slate-700">Uploading</dt>
        <dd>{formatBytes(uploadSize)}</dd>
      </dl>
      {remaining > 0 ? (
        <label className="mt-4 flex items-start gap-2 text-sm text-slate-700">
          <input type="checkbox" className="mt-0.5" checked={applyToAll} onChange={(e) => setApplyToAll(e.target.checked)} />
          <span>Apply to all remaining conflicts ({remaining} more)</span>
        </label>
      ) : null}
      {/* The three answers on top (they wrap on a phone), cancelling the whole upload apart below them. */}
      <div className="mt-6 flex flex-wrap-reverse items-center justify-between gap-2">
        <Button variant="ghost" className="-ml-3" onClick={closeDialog}>
          Cancel upload
        </Button>
        <div className="ml-auto flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={() => answer('skip')}>
            Skip
          </Button>
          <Button variant="secondary" onClick={() => answer('keep-both')}>
            Keep both
          </Button>
          <Button variant="danger" onClick={() => answer('replace')}>
            Replace
          </Button>
        </div>
      </div>
    </Modal>
  );
}
