import { errorMessage } from '@spawnpoint/contracts';
import type { ApiFailure } from './api.ts';
import { openDialog } from './dialogs.ts';
import { showsErrorDetails } from './environment.ts';
import { notify } from './toasts.ts';
import { userStore } from './user-store.ts';

export const ERROR_TOAST_TITLE = 'Whoopsie!';

/** What a toast shows of the details: the first lines say what happened; the console keeps the rest. */
const DETAIL_LINES = 4;
const DETAIL_CHARS = 600;

export type FailureEffect =
  | { kind: 'disk-limit-dialog'; message?: string }
  | { kind: 'sign-out' }
  | { kind: 'silent' }
  | { kind: 'toast'; title: string; message: string };

/**
 * What the user sees for a failed call, as a decision (docs/product.md, What a user sees when something
 * fails). Outside production an unexpected failure also shows its details (the API's own error, an answer
 * that did not fit) under the message.
 */
export function failureEffect(
  failure: Pick<ApiFailure, 'code' | 'message'> & { details?: string | undefined },
  showDetails: boolean = showsErrorDetails(),
): FailureEffect {
  switch (failure.code) {
    case 'DISK_LIMIT':
      // The catalogue's words fit a server that filled its disk; a refused upload or save says its own.
      return failure.message && failure.message !== errorMessage('DISK_LIMIT')
        ? { kind: 'disk-limit-dialog', message: failure.message }
        : { kind: 'disk-limit-dialog' };
    case 'NOT_AUTHENTICATED':
      return { kind: 'sign-out' };
    case 'SERVER_LOCKED':
      return { kind: 'silent' };
    default: {
      const details = showDetails && failure.details ? shorten(failure.details) : '';
      return { kind: 'toast', title: ERROR_TOAST_TITLE, message: details ? `${failure.message}\n${details}` : failure.message };
    }
  }
}

/**
 * Where a failure's words go instead of a toast while a confirmation's action runs: a toast would sit under
 * the modal dialog's backdrop, dimmed and out of reach, while the user looks at the dialog.
 */
type FailureSink = (title: string, message: string) => void;
let dialogSink: FailureSink | null = null;
/** Sends toast-worthy failures to `sink` until the returned function is called. */
export function showFailuresIn(sink: FailureSink): () => void {
  dialogSink = sink;
  return () => {
    if (dialogSink === sink) dialogSink = null;
  };
}
const danger = (title: string, message: string) => (dialogSink ?? ((t, m) => notify('danger', t, m)))(title, message);

export function handleApiError(failure: ApiFailure): void {
  const effect = failureEffect(failure);
  if (failure.details && showsErrorDetails()) console.error(`${failure.code}: ${failure.message}\n${failure.details}`);
  if (effect.kind === 'disk-limit-dialog') openDialog('disk-limit', effect.message ? { message: effect.message } : {});
  // The route guard sends protected pages to /login once userData is gone.
  else if (effect.kind === 'sign-out') userStore.set((s) => ({ ...s, userData: null, servers: [] }));
  else if (effect.kind === 'toast') danger(effect.title, effect.message);
}

/**
 * A failure that is no answer of the API (a bug in a click handler, say): the error page's generic words,
 * and outside production what was thrown. Without this it would only reach the console.
 */
export function handleUnexpectedError(error: unknown): void {
  console.error(error);
  const details = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  const effect = failureEffect({ code: 'INTERNAL_ERROR', message: 'An unknown error occurred, please try again.', details });
  if (effect.kind === 'toast') danger(effect.title, effect.message);
}

function shorten(details: string): string {
  const lines = details.trim().split('\n').slice(0, DETAIL_LINES).join('\n');
  return lines.length > DETAIL_CHARS ? `${lines.slice(0, DETAIL_CHARS)}…` : lines;
}
