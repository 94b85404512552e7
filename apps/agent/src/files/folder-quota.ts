import type { FileHandle } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { folderBytes } from './folder-size.ts';
import { formatSize } from './format-size.ts';
import type { NodeDisk } from './node-disk.ts';
import { SandboxError } from './sandbox-paths.ts';

/** How far one write has got: bytes written, charged to the quota and not yet committed, and credited. */
export interface WriteProgress {
  written: number;
  /** Bytes of this write charged to `inflightBytes` and not yet committed or given back. */
  charged: number;
  /**
   * An overwrite is charged only beyond the size of the file it replaces; one write at a time may count a
   * given file that way, so parallel overwrites of one file cannot each use its room.
   */
  credit: number;
}

/**
 * A server folder's disk quota: one counter. `usedBytes` is the folder as last measured plus what its
 * sandbox committed since; `inflightBytes` is what writes in progress have written so far. Every chunk is
 * charged before it is written, so parallel writes cannot pass the quota together, and a failed write gives
 * its charge back. The folder is measured again when the figure is older than its allowed age, because the
 * game writes too.
 */
export class FolderQuota {
  inflightBytes = 0;
  usedBytes = 0;
  private measuredAt = 0;
  private measuring: Promise<number> | null = null;
  /** Bytes committed while a measurement walked the folder (it may have missed them). */
  private committedDuringMeasure = 0;
  /**
   * Temporary files of writes in progress, by name, with the inode of the file itself: their bytes are in
   * `inflightBytes`, so a measurement skips exactly those files (a tenant's file of the same name elsewhere
   * is still counted).
   */
  readonly temps = new Map<string, number>();
  readonly isTemp = (name: string, ino: number) => this.temps.get(name) === ino;
  /**
   * Bytes of this folder no walk sees: files its running game deleted but keeps open (ManagedServer sets
   * it while the game runs, folder-size.ts `deletedOpenBytes`).
   */
  hiddenBytes: () => Promise<number> = async () => 0;
  /** Files (inodes) an overwrite in progress counts as replaced. */
  readonly credited = new Set<number>();

  constructor(
    /** The disk allowed; grows or shrinks with the plan and what was bought (ManagedServer updates it). */
    public quotaBytes: number,
    private readonly measureMaxAgeMs: number,
    /** The node's disk and its reserve, which no write may take whatever the quota says. */
    private readonly nodeDisk: NodeDisk | null,
  ) {}

  /** Bytes in use, counting writes in progress. */
  get used(): number {
    return this.usedBytes + this.inflightBytes;
  }

  /** Measures the folder again through a descriptor `openRoot` opens. Concurrent calls share one walk. */
  measure(openRoot: () => Promise<FileHandle>): Promise<number> {
    this.measuring ??= (async () => {
      this.committedDuringMeasure = 0;
      const root = await openRoot();
      try {
        // Every depth is measured (bytes hidden deeper than paths may reach still count against the quota).
        const total = (await folderBytes(root.fd, this.isTemp)) + (await this.hiddenBytes());
        // Over-counting what was committed during the walk is safe; missing it is not.
        this.usedBytes = total + this.committedDuringMeasure;
        this.measuredAt = Date.now();
        return this.used;
      } finally {
        await root.close();
        this.measuring = null;
      }
    })();
    return this.measuring;
  }

  /** Measures again when the figure is older than the allowed age. */
  async fresh(openRoot: () => Promise<FileHandle>): Promise<void> {
    if (Date.now() - this.measuredAt > this.measureMaxAgeMs) await this.measure(openRoot);
  }

  commit(delta: number): void {
    this.usedBytes += delta;
    if (this.measuring && delta > 0) this.committedDuringMeasure += delta;
  }

  /** Refuses a write of `size` bytes to `name` that cannot fit; `replacedBytes`: the file it overwrites. */
  async checkFits(name: string, size: number, replacedBytes: number): Promise<void> {
    const needed = size - replacedBytes;
    const free = Math.max(0, this.quotaBytes - this.used);
    if (this.nodeDisk && needed > (await this.nodeDisk.freshRoom()))
      throw new SandboxError('DISK_LIMIT', this.nodeDisk.lowMessage(`${name} (${formatSize(size)}) cannot be saved`));
    if (needed > free)
      throw new SandboxError(
        'DISK_LIMIT',
        `${name} (${formatSize(size)}) does not fit: this server has ${formatSize(free)} free of ${formatSize(this.quotaBytes)}. Delete files or upgrade the plan, then upload it again.`,
      );
  }

  /** Passes a write's bytes on, charging each chunk before it is written; DISK_LIMIT as soon as one would not fit. */
  meter(name: string, progress: WriteProgress): Transform {
    return new Transform({
      transform: (chunk: Buffer | string, _encoding, done) => {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        const more = Math.max(0, progress.written + buf.length - progress.credit) - progress.charged;
        if (more > 0 && this.used + more > this.quotaBytes) {
          done(
            new SandboxError(
              'DISK_LIMIT',
              `${name} does not fit in this server's ${formatSize(this.quotaBytes)} of disk. Delete files or upgrade the plan.`,
            ),
          );
          return;
        }
        if (more > 0 && this.nodeDisk && more > this.nodeDisk.room()) {
          done(new SandboxError('DISK_LIMIT', this.nodeDisk.lowMessage(`${name} cannot be saved`)));
          return;
        }
        progress.written += buf.length;
        if (more > 0) {
          this.inflightBytes += more;
          progress.charged += more;
        }
        done(null, buf);
      },
    });
  }
}
