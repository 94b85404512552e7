import { readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ServerState } from '@spawnpoint/contracts';
import type { ConsoleBuffer } from './console-buffer.ts';
import { removeTree, Sandbox } from '../files/sandbox.ts';

// How long a backup waits for the game to say it saved before it goes ahead anyway.
const SAVE_WAIT_MS = 10_000;
/** How long a folder just stored stays closed to writes while the control plane records it and drops it here. */
export const STORED_COPY_HOLD_MS = 60_000;

/** What the coordinator needs of its server. */
export interface BackedUpServer {
  readonly dir: string;
  readonly console: ConsoleBuffer;
  state(): ServerState;
  setState(state: ServerState): void;
  quotaBytes(): number;
  /** Sends a console command to the running game; false when no game runs. */
  send(command: string): boolean;
  /** Closes the folder's open sandbox before the folder is swapped. */
  closeSandbox(): Promise<void>;
}

/**
 * A server's backups and restores on this node: one backup at a time (a running server saves first and
 * keeps running; an offline one shows `backing_up`), and a restore that fills a staging folder and swaps
 * it in while the server is offline.
 */
export class BackupCoordinator {
  private running = false;
  private stateBefore: ServerState | null = null;

  constructor(
    private readonly server: BackedUpServer,
    private readonly refuse: (message: string) => Error,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  async before(): Promise<void> {
    if (this.running) throw this.refuse('A backup of this server is already running.');
    const state = this.server.state();
    if (state === 'restoring') throw this.refuse('The server is being restored.');
    this.running = true;
    if (state === 'offline') {
      this.stateBefore = 'offline';
      this.server.setState('backing_up');
    } else if (state === 'online') {
      // Only an acknowledgement printed after our save-all counts (an older "Saved the game" does not).
      let stop: () => void = () => undefined;
      const saved = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SAVE_WAIT_MS);
        stop = this.server.console.watch((lines) => {
          if (!lines.some((l) => /Saved the game|Saved the world/i.test(l))) return;
          clearTimeout(timer);
          resolve();
        });
      });
      try {
        if (this.server.send('save-all')) await saved;
      } finally {
        stop();
      }
    }
  }

  after(): void {
    this.running = false;
    if (this.stateBefore && this.server.state() === 'backing_up') this.server.setState(this.stateBefore);
    this.stateBefore = null;
  }

  /**
   * Sends the folder to shared storage (`send` packs it from the sandbox opened before): the server must be
   * offline, and shows `uploading` meanwhile, when nothing may change the folder (the sandbox refuses).
   */
  async upload<T>(sandbox: Sandbox, send: (sandbox: Sandbox) => Promise<T>): Promise<T> {
    const state = this.server.state();
    if (state !== 'offline' || this.running) throw this.refuse(`The server is ${state}; it must be stopped to go to storage.`);
    this.running = true;
    this.server.setState('uploading');
    // Also the writes that began before (an upload through a link): a file finished during the packing
    // would be half in the archive, or only in the node's copy that goes once the archive is recorded.
    await sandbox.stopWrites('The server is going to sleep and its files are being stored.');
    let stored = false;
    try {
      const result = await send(sandbox);
      stored = true;
      return result;
    } finally {
      // Stored: the node's copy goes as soon as the control plane has recorded the archive (which closes
      // this sandbox), so writes stay stopped until then — for a while at most, should that never come.
      if (stored) setTimeout(() => sandbox.resumeWrites(), STORED_COPY_HOLD_MS).unref();
      else sandbox.resumeWrites();
      this.running = false;
      this.server.setState('offline');
    }
  }

  /**
   * Restores into a staging folder filled by `fill`, then swaps it with the server folder. The server must
   * be offline (the API stops it first and starts it again after). `as`: what it shows meanwhile, a
   * restore from a backup or the folder coming back from shared storage.
   */
  async restore(fill: (staging: Sandbox) => Promise<void>, as: 'restoring' | 'downloading' = 'restoring'): Promise<void> {
    const state = this.server.state();
    if (state !== 'offline' || this.running) throw this.refuse(`The server is ${state}; stop it before restoring.`);
    this.server.setState(as);
    const { dir } = this.server;
    const stamp = Date.now().toString(36);
    const staging = `${dir}.restore-${stamp}`;
    const old = `${dir}.old-${stamp}`;
    try {
      const sandbox = await Sandbox.open(staging, this.server.quotaBytes());
      try {
        await fill(sandbox);
      } finally {
        await sandbox.close();
      }
      await this.server.closeSandbox();
      await rename(dir, old);
      await rename(staging, dir);
      // Through descriptors: a link inside the old folder is removed, never followed.
      await removeTree(old);
      if (as === 'restoring') this.server.console.notice('The server folder was restored from a backup.');
    } catch (err) {
      await removeTree(staging).catch(() => undefined);
      throw err;
    } finally {
      this.server.setState('offline');
    }
  }
}

const SWAP_LEFTOVER = /^(.+)\.(restore|old)-[0-9a-z]+$/;

/**
 * Run at the agent's start: a restore (or a folder fetched from storage) that the agent's death cut short
 * leaves `<id>.restore-<stamp>` (the staging folder) and perhaps `<id>.old-<stamp>` (the folder being
 * replaced). If the server's own folder is missing, the swap stopped between its two renames: the old
 * folder, the one last known good, goes back. Every other leftover is removed. Returns what was done.
 */
export async function recoverInterruptedSwaps(serversDir: string): Promise<{ putBack: string[]; removed: string[] }> {
  const done = { putBack: [] as string[], removed: [] as string[] };
  const names = await readdir(serversDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => SWAP_LEFTOVER.exec(n)?.[2] === 'old')) {
    const id = (SWAP_LEFTOVER.exec(name) as RegExpExecArray)[1] as string;
    const own = path.join(serversDir, id);
    if (
      await stat(own).then(
        () => false,
        () => true,
      )
    ) {
      await rename(path.join(serversDir, name), own);
      done.putBack.push(id);
    }
  }
  for (const name of await readdir(serversDir).catch(() => [] as string[])) {
    if (!SWAP_LEFTOVER.test(name)) continue;
    // Through descriptors: a link the game planted is removed, never followed.
    await removeTree(path.join(serversDir, name));
    done.removed.push(name);
  }
  return done;
}
