import { endpoints } from '@spawnpoint/contracts';
import { ApiFailure, call } from './api.ts';
import { handleApiError } from './api-errors.ts';
import { INVITE_KEY } from './query-params.ts';
import { notify } from './toasts.ts';
import { fetchServers } from './user-store.ts';

export function storedInvite(): string | null {
  try {
    return sessionStorage.getItem(INVITE_KEY);
  } catch {
    return null;
  }
}

function forgetInvite(): void {
  try {
    sessionStorage.removeItem(INVITE_KEY);
  } catch {
    // nothing kept
  }
}

let accepting = false;

/**
 * Accepts the invitation kept from `?invite_token=` once someone is signed in (after registering or
 * signing in, or at once when they already were), then opens the server. A refused token is forgotten
 * with the API's message (another address, expired, used); a network failure keeps it for the next try.
 */
export async function acceptStoredInvite(open: (serverId: string) => void): Promise<void> {
  const token = storedInvite();
  if (!token || accepting) return;
  accepting = true;
  try {
    const { serverId } = await call(endpoints.invitationAccept, { body: { token } }, { background: true });
    forgetInvite();
    notify('success', 'Server invite accepted');
    await fetchServers().catch(() => undefined);
    open(serverId);
  } catch (failure) {
    if (failure instanceof ApiFailure && failure.code !== 'NETWORK_ERROR') {
      forgetInvite();
      if (failure.code === 'NOT_AUTHENTICATED') return;
      handleApiError(failure);
    }
  } finally {
    accepting = false;
  }
}
