import type { ApiFailure } from './api.ts';
import { openDialog } from './dialogs.ts';
import { notify } from './toasts.ts';
import { userStore } from './user-store.ts';

export const ERROR_TOAST_TITLE = 'Whoopsie!';

export type FailureEffect =
  { kind: 'disk-limit-dialog' } | { kind: 'sign-out' } | { kind: 'silent' } | { kind: 'toast'; title: string; message: string };

/** Spec §8 as a decision: what the user sees for a failed call. */
export function failureEffect(failure: Pick<ApiFailure, 'code' | 'message'>): FailureEffect {
  switch (failure.code) {
    case 'DISK_LIMIT':
      return { kind: 'disk-limit-dialog' };
    case 'NOT_AUTHENTICATED':
      return { kind: 'sign-out' };
    case 'SERVER_LOCKED':
      return { kind: 'silent' };
    default:
      return { kind: 'toast', title: ERROR_TOAST_TITLE, message: failure.message };
  }
}

export function handleApiError(failure: ApiFailure): void {
  const effect = failureEffect(failure);
  if (effect.kind === 'disk-limit-dialog') openDialog('disk-limit', {});
  // The route guard sends protected pages to /login once userData is gone.
  else if (effect.kind === 'sign-out') userStore.set((s) => ({ ...s, userData: null, servers: [] }));
  else if (effect.kind === 'toast') notify('danger', effect.title, effect.message);
}
