import type { AgentBackupEvent, BackupRestoreEvent, ErrorCode } from '@spawnpoint/contracts';
import { consoleRoom } from './console-fan-out.ts';
import type { Realtime } from './realtime.ts';
import { memberRoom, userRoom } from './realtime.ts';

/** Who a server's events are for, in rooms: the owner's sockets, the console's subscribers, every member's. */
export function audienceOf(serverId: string, ownerId: string): string[] {
  return [userRoom(ownerId), consoleRoom(serverId), memberRoom(serverId)];
}

/** The percentage browsers see: 100 only once complete (the archive is smaller than the bytes read). */
export function backupPercent(event: Pick<AgentBackupEvent, 'phase' | 'bytes' | 'totalBytes'>): number {
  if (event.phase === 'complete') return 100;
  return event.totalBytes > 0 ? Math.min(99, Math.floor((event.bytes / event.totalBytes) * 100)) : 0;
}

/**
 * What the pages open on a server are told besides its state and console: its place in the start queue, a
 * failure after an answer, backup and restore progress. `ownerOf` says whose server it is (none: it is not
 * placed, and nobody is told).
 */
export class ServerRelay {
  constructor(
    private readonly io: Realtime,
    private readonly ownerOf: (serverId: string) => string | undefined,
  ) {}

  private audience(serverId: string): string[] | null {
    const ownerId = this.ownerOf(serverId);
    return ownerId === undefined ? null : audienceOf(serverId, ownerId);
  }

  /** Tells the owner's pages a server's place in the start queue (null: it left the queue). */
  queuePosition(serverId: string, position: number | null): void {
    const audience = this.audience(serverId);
    if (audience) this.io.to(audience).emit('server:queue', { serverId, position });
  }

  /** Tells the pages open on a server that something it was asked to do failed after it was answered. */
  failed(serverId: string, status: ErrorCode, message: string): void {
    const audience = this.audience(serverId);
    if (audience) this.io.to(audience).emit('server:error', { serverId, status, message });
  }

  /** A backup's progress and how it ended. */
  backup(event: AgentBackupEvent): void {
    const audience = this.audience(event.serverId);
    if (!audience) return;
    this.io.to(audience).emit('server:backup', {
      serverId: event.serverId,
      backupId: event.backupId,
      phase: event.phase,
      percent: backupPercent(event),
      ...(event.error ? { message: event.error } : {}),
    });
  }

  /** Where a restore is, and how it ended (a restore is a job: routes/backups.ts). */
  restore(event: BackupRestoreEvent): void {
    const audience = this.audience(event.serverId);
    if (audience) this.io.to(audience).emit('server:restore', event);
  }
}
