import { statfs } from 'node:fs/promises';
import { formatSize } from './format-size.ts';

/** How old the node's free-space figure may be when a write is decided. */
const FREE_MAX_AGE_MS = 1000;

/**
 * The node's own disk (the filesystem of DATA_DIR) and the reserve no tenant can take: the database, the
 * logs and the agent need room even when every server fills its quota (quotas are sold, not reserved, so
 * their sum may pass the disk). Below the reserve, file-manager writes are refused, no server starts, and
 * a running game that is still writing is stopped (stats-sampler.ts).
 */
export class NodeDisk {
  private freeBytes = Number.POSITIVE_INFINITY;
  private readAt = 0;
  private reading: Promise<number> | null = null;

  constructor(
    private readonly dir: string,
    readonly reserveBytes: number,
  ) {}

  /** Reads the free space again (concurrent calls share one read) and answers the room above the reserve. */
  refresh(): Promise<number> {
    this.reading ??= statfs(this.dir)
      .then(
        (fs) => {
          this.freeBytes = fs.bavail * fs.bsize;
          this.readAt = Date.now();
          return this.room();
        },
        // A filesystem that cannot be read leaves the last figure (the writes themselves fail if it is gone).
        () => this.room(),
      )
      .finally(() => (this.reading = null));
    return this.reading;
  }

  /** The room above the reserve by the last figure (negative below it); reads again in the background when old. */
  room(): number {
    if (Date.now() - this.readAt > FREE_MAX_AGE_MS) void this.refresh();
    return this.freeBytes - this.reserveBytes;
  }

  /** The room above the reserve, read again when the figure is older than a second. */
  async freshRoom(): Promise<number> {
    return Date.now() - this.readAt > FREE_MAX_AGE_MS ? this.refresh() : this.room();
  }

  /** What a refusal for lack of node disk says: it is not the tenant's quota, and waiting may help. */
  lowMessage(what: string): string {
    const free = Math.max(0, this.freeBytes);
    return `${what}: this node is nearly out of disk space (${formatSize(free)} free, ${formatSize(this.reserveBytes)} kept for the system). Try again later, or contact support if it lasts.`;
  }
}
