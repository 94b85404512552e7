import { AGENT_CONSOLE_BATCH_BYTES } from '@spawnpoint/contracts';

/** Console lines waiting for the API while its socket is slow or away; beyond this the oldest go, with a notice. */
export const OUTBOX_MAX_LINES = 20_000;
/**
 * Batches of one server on their way at once. One, so a batch sent again after a lost acknowledgement
 * still comes before newer lines (a round trip per 64 KiB batch is far from the output guard's rate).
 */
const IN_FLIGHT_MAX = 1;

/** Bytes a line costs in a batch as sent (JSON: an escape character is 6 bytes, a CJK character 3). */
const encodedBytes = (line: string) => Buffer.byteLength(JSON.stringify(line)) + 1;

/**
 * Cuts a line that could not fit in one batch into pieces that do, by code points, each piece under the
 * limit even if every character needed escaping (rare: lines are at most 4,096 characters).
 */
export function fitLine(line: string, maxBytes = AGENT_CONSOLE_BATCH_BYTES): string[] {
  if (encodedBytes(line) + 2 <= maxBytes) return [line];
  const chars = [...line];
  const step = Math.max(1, Math.floor((maxBytes - 8) / 6));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += step) pieces.push(chars.slice(i, i + step).join(''));
  return pieces;
}

/** The first lines of `lines` that fit in one batch of at most `maxBytes` encoded bytes (at least one). */
export function firstBatch(lines: readonly string[], maxBytes = AGENT_CONSOLE_BATCH_BYTES): string[] {
  let bytes = 2;
  let n = 0;
  while (n < lines.length && n < 5000) {
    const cost = encodedBytes(lines[n] as string);
    if (n > 0 && bytes + cost > maxBytes) break;
    bytes += cost;
    n++;
  }
  return lines.slice(0, n);
}

/**
 * The agent's console outbox. Lines are sent in batches sized in bytes; a batch stays owed until the API
 * acknowledges it, and one that is not acknowledged (the socket dropped, a timeout) goes back to the front
 * of its server's queue, so a batch that was not delivered is never dropped.
 */
export class ConsoleOutbox {
  private queues = new Map<string, string[]>();
  private inFlight = new Map<string, number>();

  constructor(
    /** Sends one batch; resolves true once the API acknowledged it. */
    private send: (serverId: string, lines: string[]) => Promise<boolean>,
    private canSend: () => boolean,
  ) {}

  add(serverId: string, lines: readonly string[]): void {
    const queue = this.queues.get(serverId) ?? [];
    for (const line of lines) queue.push(...fitLine(line));
    this.trim(queue);
    this.queues.set(serverId, queue);
  }

  /** Sends what may go now; call again when the socket connects or a batch was acknowledged. */
  flush(): void {
    if (!this.canSend()) return;
    for (const [serverId, queue] of this.queues) {
      while (queue.length && (this.inFlight.get(serverId) ?? 0) < IN_FLIGHT_MAX) {
        const first = queue.splice(0, firstBatch(queue).length);
        this.inFlight.set(serverId, (this.inFlight.get(serverId) ?? 0) + 1);
        void this.send(serverId, first).then((delivered) => {
          this.inFlight.set(serverId, (this.inFlight.get(serverId) ?? 1) - 1);
          if (!delivered) {
            const again = this.queues.get(serverId) ?? [];
            again.unshift(...first);
            this.trim(again);
            this.queues.set(serverId, again);
          }
          this.flush();
        });
      }
      if (!queue.length && !this.inFlight.get(serverId)) this.queues.delete(serverId);
    }
  }

  /** Lines waiting (not counting batches on their way). */
  get waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  private trim(queue: string[]): void {
    if (queue.length <= OUTBOX_MAX_LINES) return;
    const skipped = queue.length - OUTBOX_MAX_LINES + 1;
    queue.splice(
      0,
      skipped,
      `\x1b[33m[Spawnpoint]\x1b[0m ${skipped} console lines were skipped because the node could not reach the panel fast enough.`,
    );
  }
}
