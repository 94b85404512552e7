import { endpoints } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import { ApiFailure, call } from '../lib/api.ts';
import { handleUnexpectedError, showFailuresIn } from '../lib/api-errors.ts';
import { closeDialog, dialogNames, dialogStore, type DialogOptionsByName, type OpenDialog } from '../lib/dialogs.ts';
import { useStore } from '../lib/use-store.ts';
import { notify } from '../lib/toasts.ts';
import { useSending } from '../lib/use-sending.ts';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';
import { DisableTwoFactorDialog, EnableTwoFactorDialog } from './twofactor-dialogs.tsx';
import { UploadConflictDialog } from './upload-conflict-dialog.tsx';

/** Renders whichever global dialog is open; listens for `open-{dialogName}`; closes on route change. */
export function DialogsHost() {
  const open = useStore(dialogStore, (s) => s, null);
  const location = useLocation();

  useEffect(() => {
    const handlers = dialogNames.map((name) => {
      const handler = (event: Event) => {
        const options = (event as CustomEvent<DialogOptionsByName[typeof name]>).detail;
        dialogStore.set({ name, options } as OpenDialog);
      };
      window.addEventListener(`open-${name}`, handler);
      return () => window.removeEventListener(`open-${name}`, handler);
    });
    return () => handlers.forEach((off) => off());
  }, []);

  useEffect(() => {
    closeDialog();
  }, [location.pathname]);

  if (!open) return null;
  switch (open.name) {
    case 'confirm':
      return <ConfirmDialog {...open.options} />;
    case 'input':
      return <InputDialog {...open.options} />;
    case 'feedback':
      return <FeedbackDialog route={(location.pathname + location.search + location.hash).slice(0, 2048)} />;
    case 'enable-twofactor':
      return <EnableTwoFactorDialog {...open.options} />;
    case 'disable-twofactor':
      return <DisableTwoFactorDialog {...open.options} />;
    case 'upload-conflict':
      // Keyed by the options: the next conflict's question starts afresh (focus, checkbox).
      return <UploadConflictDialog key={`${open.options.folder}/${open.options.name}`} {...open.options} />;
    case 'disk-limit':
      return (
        <Modal title="Disk limit reached">
          <p className="text-slate-600">
            {open.options.message ??
              'This server has reached its disk limit. Upgrade the plan or delete files to free up space. The server will not start until this is resolved.'}
          </p>
          <div className="mt-6 flex justify-end">
            <Button onClick={closeDialog}>OK</Button>
          </div>
        </Modal>
      );
  }
}

/**
 * A title, a message, Confirm and Cancel (docs/product.md, What a user sees when something fails). An
 * action may name its confirm button ("Delete server"); Cancel is always there and always works, even while
 * the action is being sent. Confirm sends once (the Button waits for the returned promise) and the dialog
 * stays open when the action fails.
 */
function ConfirmDialog({
  title,
  message,
  link,
  confirmLabel = 'Confirm',
  danger,
  typeToConfirm,
  onConfirm,
}: DialogOptionsByName['confirm']) {
  // A failed action is said here, where the user is looking (a toast would sit under the backdrop).
  const [failure, setFailure] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  return (
    <Modal title={title}>
      <p className="text-slate-600">{message}</p>
      {link ? (
        <p className="mt-2">
          <a href={link.href} target="_blank" rel="noopener noreferrer" className="font-medium text-brand-700 underline">
            {link.label}
          </a>
        </p>
      ) : null}
      {typeToConfirm !== undefined ? (
        <div className="mt-4">
          <label htmlFor="dialog-confirm-text" className="block text-sm font-medium text-slate-700">
            Type <span className="font-mono font-semibold">{typeToConfirm}</span> to confirm
          </label>
          <input
            id="dialog-confirm-text"
            autoFocus
            autoComplete="off"
            spellCheck={false}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 font-mono"
          />
        </div>
      ) : null}
      {failure ? (
        <p role="alert" className="mt-3 rounded-md bg-red-50 p-3 text-sm whitespace-pre-line text-red-800" data-testid="dialog-failure">
          {failure}
        </p>
      ) : null}
      <div className="mt-6 flex flex-wrap justify-end gap-3">
        <Button variant="secondary" onClick={closeDialog}>
          Cancel
        </Button>
        <Button
          variant={danger ? 'danger' : 'primary'}
          disabled={typeToConfirm !== undefined && typed.trim() !== typeToConfirm}
          onClick={async () => {
            setFailure(null);
            const release = showFailuresIn((_title, words) => setFailure(words));
            try {
              await onConfirm();
            } finally {
              release();
            }
            closeDialog();
          }}
        >
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}

function InputDialog({ title, message, label, initialValue = '', secret, validate, onContinue }: DialogOptionsByName['input']) {
  const [value, setValue] = useState(initialValue);
  const { sending, send } = useSending();
  // A refusal is said in the dialog, where the user is looking (a toast would sit under the backdrop).
  const [failure, setFailure] = useState<string | null>(null);
  return (
    <Modal title={title}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const problem = validate?.(value) ?? null;
          setFailure(problem);
          if (problem !== null) return;
          void send(async () => {
            const release = showFailuresIn((_title, words) => setFailure(words));
            try {
              await onContinue(value);
              closeDialog();
            } catch (error) {
              // Said above; keep the dialog and the text.
              if (!(error instanceof ApiFailure)) handleUnexpectedError(error);
            } finally {
              release();
            }
          });
        }}
      >
        {message ? <p className="mb-3 text-slate-600">{message}</p> : null}
        <label htmlFor="dialog-input" className="block text-sm font-medium text-slate-700">
          {label}
        </label>
        <input
          id="dialog-input"
          autoFocus
          type={secret ? 'password' : 'text'}
          autoComplete={secret ? 'current-password' : undefined}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          aria-invalid={failure !== null}
          aria-describedby={failure !== null ? 'dialog-failure' : undefined}
          className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2"
        />
        {failure ? (
          <p
            id="dialog-failure"
            role="alert"
            className="mt-3 rounded-md bg-red-50 p-3 text-sm whitespace-pre-line text-red-800"
            data-testid="dialog-failure"
          >
            {failure}
          </p>
        ) : null}
        <div className="mt-6 flex justify-end gap-3">
          <Button type="button" variant="secondary" onClick={closeDialog}>
            Cancel
          </Button>
          <Button type="submit" busy={sending}>
            Continue
          </Button>
        </div>
      </form>
    </Modal>
  );
}

function FeedbackDialog({ route }: { route: string }) {
  const [message, setMessage] = useState('');
  const { sending, send } = useSending();
  return (
    <Modal title="Send feedback">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send(async () => {
            try {
              // No client-side rules: the server's answer decides.
              await call(endpoints.feedback, { body: { message, route } });
              notify('success', 'Feedback sent');
              closeDialog();
            } catch {
              // The API client's error toast already told the user what went wrong; keep their text.
            }
          });
        }}
      >
        <label htmlFor="feedback-message" className="block text-sm text-slate-600">
          Tell us what works, what does not, or what you would like to see.
        </label>
        <textarea
          id="feedback-message"
          autoFocus
          rows={5}
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          className="mt-2 block w-full rounded-md border border-slate-300 px-3 py-2"
        />
        <div className="mt-6 flex justify-end gap-3">
          <Button type="button" variant="secondary" onClick={closeDialog}>
            Cancel
          </Button>
          <Button type="submit" busy={sending}>
            Send
          </Button>
        </div>
      </form>
    </Modal>
  );
}
