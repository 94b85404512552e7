import { SOCKET_TOKEN_TTL_MS } from '@spawnpoint/contracts';
import { readPurposeToken, signPurposeToken } from './tokens.ts';

const SOCKET_TOKEN_PURPOSE = 'socket';

/**
 * Spent socket-token ids. A token stays HMAC-signed and stateless, but without this list one token from
 * GET /v1/user/websocket could authenticate any number of sockets for its whole minute.
 *
 * The in-memory implementation below only knows the tokens this process saw. Production with several API
 * processes must share the list (e.g. Redis `SET id 1 NX PXAT expiresAt`, as cluster.ts does), or a token could
 * be spent once per process; hence this interface, and why `claim` is asynchronous.
 */
export interface SpentTokenIds {
  /** Records `id` as spent until `expiresAt` (ms since epoch). False when it was already spent, or cannot be recorded. */
  claim(id: string, expiresAt: number): Promise<boolean>;
}

/**
 * Ids of spent tokens held until their tokens expire (after that the signature check refuses the token
 * anyway, so the id can be forgotten). Bounded: expired ids are swept at most every `sweepMs`, and when
 * `max` live ids are held, new tokens are refused rather than old ones forgotten, because forgetting an
 * id would make its token reusable again. At the default 100 000 that is under 10 MB of heap, far above the tokens
 * one process hands out in a minute.
 */
export class MemorySpentTokenIds implements SpentTokenIds {
  private spent = new Map<string, number>();
  private nextSweep = 0;

  constructor(
    private readonly max = 100_000,
    private readonly sweepMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  claim(id: string, expiresAt: number): Promise<boolean> {
    const now = this.now();
    if (now >= this.nextSweep || this.spent.size >= this.max) this.sweep(now);
    if (this.spent.has(id) || this.spent.size >= this.max) return Promise.resolve(false);
    this.spent.set(id, expiresAt);
    return Promise.resolve(true);
  }

  /** Ids held right now (for tests and metrics). */
  get size(): number {
    return this.spent.size;
  }

  private sweep(now: number): void {
    this.nextSweep = now + this.sweepMs;
    for (const [id, expiresAt] of this.spent) if (expiresAt < now) this.spent.delete(id);
  }
}

/** A token for the socket `auth` event of this session: signed, valid for SOCKET_TOKEN_TTL_MS, good for one socket. */
export function issueSocketToken(secret: string, sessionId: string): string {
  return signPurposeToken(secret, SOCKET_TOKEN_PURPOSE, sessionId, SOCKET_TOKEN_TTL_MS);
}

/** The session id of a valid socket token the first time it is presented; null for anything else, including a second use. */
export async function redeemSocketToken(secret: string, spent: SpentTokenIds, token: string): Promise<string | null> {
  const read = readPurposeToken(secret, SOCKET_TOKEN_PURPOSE, token);
  if (!read) return null;
  return (await spent.claim(read.id, read.expiresAt)) ? read.subject : null;
}
