import { useEffect, useRef, useState } from 'react';
import { Link, useBlocker } from 'react-router';
import { downloadUrl, readFile, saveFile } from '../lib/files.ts';
import { notify } from '../lib/toasts.ts';
import type { useServer } from '../lib/use-server.ts';
import { Button, buttonClass } from './button.tsx';
import { CodeEditor } from './code-editor.tsx';
import { Modal } from './modal.tsx';
import { ServerShell } from './server-shell.tsx';

/** The file editor of the files page (`?edit=PATH`): CodeMirror, Save (also Ctrl-S), and a question before unsaved changes are lost. */
export function FileEditor({
  serverId,
  load,
  path,
  readOnly,
  onClose,
}: {
  serverId: string;
  load: ReturnType<typeof useServer>;
  path: string;
  /** The caller may read files but not change them: no Save, and the text cannot be edited. */
  readOnly: boolean;
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
      // shown by the API client's failure handling
    } finally {
      inFlight.current = false;
      setSaving(false);
    }
  }

  return (
    <ServerShell serverId={serverId} load={load}>
      <div className="space-y-3">
        <EditorBar
          serverId={serverId}
          path={path}
          dirty={dirty}
          readOnly={readOnly}
          saving={saving}
          loaded={content !== null}
          onClose={onClose}
          onSave={() => void save()}
        />
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
            readOnly={readOnly}
            onChange={(v) => {
              current.current = v;
              setDirty(v !== saved.current);
            }}
            onSave={() => void save()}
          />
        )}
      </div>
      <LeaveGuard dirty={dirty} path={path} />
    </ServerShell>
  );
}

/**
 * Leaving with unsaved changes asks first: in-app navigation (tabs, links, Close, Back) through the router's
 * blocker, reload and closing the tab through the browser's own beforeunload prompt.
 */
function LeaveGuard({ dirty, path }: { dirty: boolean; path: string }) {
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
  return blocker.state === 'blocked' ? (
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
  ) : null;
}

/** The file's path (and whether it has unsaved changes), Download, Close, and Save where the role may. */
function EditorBar(props: {
  serverId: string;
  path: string;
  dirty: boolean;
  readOnly: boolean;
  saving: boolean;
  loaded: boolean;
  onClose: () => void;
  onSave: () => void;
}) {
  const { serverId, path, dirty, readOnly, saving, loaded, onClose, onSave } = props;
  return (
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
        {readOnly ? (
          <span className="self-center text-sm text-slate-600">Read-only for your role</span>
        ) : (
          <Button onClick={onSave} busy={saving} disabled={!loaded}>
            Save
          </Button>
        )}
      </div>
    </div>
  );
}
