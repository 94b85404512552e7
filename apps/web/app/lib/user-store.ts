import { SERVER_LIST_POLL_MS, endpoints, type ServerState, type ServerSummary, type UserData } from '@spawnpoint/contracts';
import { analytics } from './analytics.ts';
import { ApiFailure, call } from './api.ts';
import { createStore } from './store.ts';
import { useStore } from './use-store.ts';

export interface UserState {
  initialized: boolean;
  userData: UserData | null;
  servers: ServerSummary[];
  /**
   * Signed out on purpose (Sign out, a deleted account): a page that needs a session then goes home, not to
   * sign-in with a way back to where the user just left.
   */
  leftOnPurpose?: boolean;
  /** Why each server last went offline on its own, as the live events said (`ServerDetails.stoppedBecause`). */
  stoppedBecause?: Record<string, string | null>;
}

const initial: UserState = { initialized: false, userData: null, servers: [] };

/** Signed in exactly when `userData` is non-null; initialized after the first user fetch. */
export const userStore = createStore<UserState>(initial);

export function useUser<S>(select: (state: UserState) => S): S {
  return useStore(userStore, select, initial);
}

/** Fetches the user; the first time (and after sign-in) the servers too. */
export async function fetchUser(options: { withServers?: boolean } = {}): Promise<UserData | null> {
  try {
    // Asked of an endpoint that answers a visitor too: a signed-out visit is no failed request.
    const { user } = await call(endpoints.sessionUser, {}, { background: true });
    userStore.set((s) => ({ ...s, userData: user, ...(user === null ? { servers: [] } : {}) }));
    if (user !== null && options.withServers) await fetchServers();
    return user;
  } catch (error) {
    // NOT_AUTHENTICATED means signed out; any other failure is swallowed (a background call shows no toast).
    if (error instanceof ApiFailure && error.code === 'NOT_AUTHENTICATED') {
      userStore.set((s) => ({ ...s, userData: null, servers: [] }));
    }
    return null;
  } finally {
    userStore.set((s) => (s.initialized ? s : { ...s, initialized: true }));
  }
}

export async function fetchServers(): Promise<void> {
  try {
    const servers = await call(endpoints.userServers, {}, { background: true });
    userStore.set((s) => ({ ...s, servers }));
  } catch (error) {
    if (error instanceof ApiFailure && error.code === 'NOT_AUTHENTICATED') userStore.set((s) => ({ ...s, userData: null, servers: [] }));
  }
}

export function setSignedIn(user: UserData): void {
  userStore.set((s) => ({ ...s, initialized: true, userData: user, leftOnPurpose: false }));
  void fetchServers();
}

export async function logout(): Promise<void> {
  try {
    await call(endpoints.logout, {});
  } finally {
    signedOutOnPurpose();
  }
}

/** The user ended their session themselves (or deleted their account): forgotten here, and sent home. */
export function signedOutOnPurpose(): void {
  userStore.set((s) => ({ ...s, userData: null, servers: [], leftOnPurpose: true }));
  analytics.reset();
}

export function setServerState(serverId: string, state: ServerState, stoppedBecause?: string | null): void {
  userStore.set((s) => ({
    ...s,
    servers: s.servers.map((server) => (server.serverId === serverId ? { ...server, state } : server)),
    ...(stoppedBecause !== undefined ? { stoppedBecause: { ...s.stoppedBecause, [serverId]: stoppedBecause } } : {}),
  }));
}

export function setServerPlayers(serverId: string, online: number): void {
  userStore.set((s) => ({
    ...s,
    servers: s.servers.map((server) =>
      server.serverId === serverId && server.players.online !== online ? { ...server, players: { ...server.players, online } } : server,
    ),
  }));
}

/** Polls the server list every 5 s while signed in; returns the stop function. */
export function startServerPolling(): () => void {
  const timer = setInterval(() => {
    if (userStore.get().userData) void fetchServers();
  }, SERVER_LIST_POLL_MS);
  return () => clearInterval(timer);
}
