import { useEffect, useRef, type ReactNode } from 'react';
import { closeDialog } from '../lib/dialogs.ts';

/**
 * A native modal dialog: focus kept inside, Escape closes it. `onCancel` is for a dialog a page renders
 * itself (not through the dialog store): Escape then calls it instead of closing the global dialog.
 */
export function Modal({ title, children, onCancel }: { title: string; children: ReactNode; onCancel?: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby="dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        (onCancel ?? closeDialog)();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg bg-white p-6 shadow-xl"
    >
      <h2 id="dialog-title" className="text-lg font-semibold text-slate-900">
        {title}
      </h2>
      <div className="mt-3">{children}</div>
    </dialog>
  );
}
