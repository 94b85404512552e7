import { z } from 'zod';

/**
 * API_URL of an agent or a join proxy: the address of the API, or of each API process separated by commas.
 * Only the process that holds the game plane takes agents and proxies; the others refuse them with
 * GAME_PLANE_REFUSAL, and they try the next address (`dialInTurn`).
 */
export const apiUrlList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim().replace(/\/+$/, ''))
      .filter(Boolean),
  )
  .pipe(z.array(z.url()).min(1, 'must name at least one address').max(16, 'names at most 16 addresses'));

/** What an API process that does not hold the game plane answers an agent or a proxy. */
export const GAME_PLANE_REFUSAL = 'GAME_PLANE_ELSEWHERE';

/** The parts of a socket.io-client socket `dialInTurn` uses (so contracts need not depend on the client). */
export interface DialedSocket {
  readonly active: boolean;
  io: { on(event: 'reconnect_attempt', listener: () => void): unknown };
  on(event: 'connect_error', listener: (err: Error) => void): unknown;
  connect(): unknown;
  disconnect(): unknown;
}

/**
 * Makes a socket dialled at `urls[0]` (made with `forceNew`, so no other socket shares its connection) try
 * each address in turn: after GAME_PLANE_REFUSAL (another process holds the game plane: the next is tried
 * after `retryMs`) and before each reconnection attempt (the process it had is gone). Any other refusal
 * (a wrong token) ends it, as it always did. `current` is the address it dials now; `stop` before closing it.
 */
export function dialInTurn(socket: DialedSocket, urls: string[], retryMs: number): { current: () => string; stop: () => void } {
  let at = 0;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const next = () => {
    at = (at + 1) % urls.length;
    // socket.io-client's Manager opens each connection to its `uri` (private in its typings, read at every
    // open), so setting it is how one socket, with all its listeners, moves to another address.
    (socket.io as unknown as { uri: string }).uri = urls[at] as string;
  };
  socket.io.on('reconnect_attempt', () => {
    if (urls.length > 1) next();
  });
  socket.on('connect_error', (err) => {
    // A transport failure reconnects by itself (`active`); a refusal by the API does not.
    if (socket.active || err.message !== GAME_PLANE_REFUSAL || stopped) return;
    socket.disconnect();
    next();
    retry = setTimeout(() => {
      retry = null;
      if (!stopped) socket.connect();
    }, retryMs);
    retry.unref?.();
  });
  return {
    current: () => urls[at] as string,
    stop: () => {
      stopped = true;
      if (retry) clearTimeout(retry);
    },
  };
}
