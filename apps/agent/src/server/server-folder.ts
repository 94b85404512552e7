import { mkdir, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { AgentServerSpec, ServerState } from '@spawnpoint/contracts';
import { deletedOpenBytes } from '../files/folder-size.ts';
import type { NodeDisk } from '../files/node-disk.ts';
import { closingOnError, Sandbox, SandboxError } from '../files/sandbox.ts';
import { effectiveMaxPlayers } from '../runtimes/game-settings.ts';
import { parseProperties, updateProperties } from './properties.ts';

/** What a server's folder asks of its server (ManagedServer). */
export interface FolderOwner {
  spec(): AgentServerSpec;
  state(): ServerState;
  /** Deleted: the folder is not opened again. */
  removed(): boolean;
  /** The running game's processes (their open files count against the quota); [] when none runs. */
  pids(): Promise<number[]>;
}

/** Why a game that wrote past its disk quota while running was stopped, and what to do. */
export function overQuotaReason(bytes: number, quotaBytes: number): string {
  const mb = (n: number) => `${Math.ceil(n / (1024 * 1024))} MB`;
  return `The server was stopped: its folder uses ${mb(bytes)}, more than its disk limit of ${mb(quotaBytes)}. Delete files in the file manager (or upgrade), then start it again.`;
}

/** One server's folder on this node: its sandbox, opened once, the disk checked before a start, its slots. */
export class ServerFolder {
  private opened: Promise<Sandbox> | null = null;

  constructor(
    readonly dir: string,
    /** The node's disk and the reserve no server may take (node-disk.ts). */
    private readonly nodeDisk: NodeDisk,
    private readonly owner: FolderOwner,
  ) {}

  /** The folder's sandbox, opened once (its quota the plan's disk); none once deleted, nor while swapped or stored. */
  sandbox(): Promise<Sandbox> {
    const state = this.owner.state();
    // A late stats tick must not open one again: collected while open, it ends the agent (Node 26).
    if (this.owner.removed()) return Promise.reject(new SandboxError('NOT_FOUND', 'This server was deleted.'));
    if (state === 'restoring' || state === 'downloading')
      return Promise.reject(new SandboxError('INVALID_STATE', 'The server is being restored. Please try again in a moment.'));
    if (state === 'uploading')
      return Promise.reject(new SandboxError('INVALID_STATE', 'The server is going to sleep and its files are being stored.'));
    this.opened ??= mkdir(this.dir, { recursive: true })
      .then(() => Sandbox.open(this.dir, this.owner.spec().diskMb * 1024 * 1024, { nodeDisk: this.nodeDisk }))
      .then(async (sandbox) => {
        const { dev } = await closingOnError(stat(this.dir), () => sandbox.close());
        // Files the running game deleted but keeps open are still on the disk: they count too.
        sandbox.hiddenBytes = async () => deletedOpenBytes(await this.owner.pids(), dev);
        return sandbox;
      });
    this.opened.catch(() => (this.opened = null));
    return this.opened;
  }

  async close(): Promise<void> {
    const open = this.opened;
    this.opened = null;
    if (open) await (await open).close().catch(() => undefined);
  }

  /**
   * A server over its disk quota does not start until space is freed (the folder is measured now), and
   * none starts on a node below its disk reserve.
   */
  async checkDisk(): Promise<void> {
    if ((await this.nodeDisk.refresh()) < 0) throw new SandboxError('DISK_LIMIT', this.nodeDisk.lowMessage('The server cannot start'));
    const sandbox = await this.sandbox();
    if ((await sandbox.measure()) > sandbox.quotaBytes) {
      throw new SandboxError('DISK_LIMIT', 'The disk limit of this server has been reached. Delete files or upgrade before starting it.');
    }
  }

  /** The player slots the server runs with (server.properties, capped by the plan), as the dashboard shows them. */
  async maxPlayers(): Promise<number> {
    const text = await (await this.sandbox()).readTextIfExists('server.properties').catch(() => null);
    return effectiveMaxPlayers(parseProperties(text ?? ''), this.owner.spec().maxPlayers);
  }

  /**
   * After a plan change from `previous` slots to the spec's: a server set to all of its old plan's slots
   * gets all of the new plan's (an upgrade is bought for them), one set above the new plan's is lowered to
   * it (it could not use them anyway), and a number its owner chose below both stays.
   */
  async followPlanSlots(previous: number): Promise<void> {
    const sandbox = await this.sandbox();
    const text = await sandbox.readTextIfExists('server.properties');
    if (text === null) return;
    const value = Number(parseProperties(text).get('max-players'));
    const slots = this.owner.spec().maxPlayers;
    if (!Number.isInteger(value) || value === slots || (value !== previous && value < slots)) return;
    const next = updateProperties(text, { 'max-players': String(slots) });
    await sandbox.writeFrom('server.properties', Readable.from([Buffer.from(next)]), { overwrite: true });
  }
}
