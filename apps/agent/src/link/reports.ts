import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { agentBackupEvent, type AgentBackupEvent, type AgentUploadEvent } from '@spawnpoint/contracts';
import { z } from 'zod';
import { parsedJson } from '../files/json-text.ts';
import type { ApiSocket } from './api-link.ts';

// How a backup ended, not acknowledged by then, is sent again (the API is slow, or the socket dropped).
const ACK_TIMEOUT_MS = 30_000;
// Upload reports kept for the API at most (≈ 100 bytes each); beyond it a long outage loses log entries.
const MAX_UNRECORDED_UPLOADS = 10_000;

/**
 * Backups being made, by server, listed in every hello — and how backups ended that the API has not said it
 * recorded, by backup: sent again after every reconnect (after the hello, which still lists them as being
 * made, so the API never settles one as failed unheard) and when an acknowledgement does not come. Kept on
 * disk too (the agent's own run folder, out of every game's reach), so an agent restarted before the API
 * acknowledged an end still has it, and still lists its backup in the hello.
 */
export class BackupReports {
  readonly running = new Map<string, string>();
  private readonly unrecorded = new Map<string, AgentBackupEvent>();
  private readonly file: string;
  private written: Promise<void> = Promise.resolve();

  private constructor(
    private readonly socket: ApiSocket,
    private readonly runDir: string,
    private readonly onWriteError: (err: unknown) => void,
  ) {
    this.file = path.join(runDir, 'backup-ends.json');
  }

  /** The reports an earlier run of the agent left unacknowledged, read back from its run folder. */
  static async load(socket: ApiSocket, runDir: string, onWriteError: (err: unknown) => void): Promise<BackupReports> {
    const reports = new BackupReports(socket, runDir, onWriteError);
    // What the file holds is unknown until the schema says otherwise (none yet: nothing kept).
    const text = await readFile(reports.file, 'utf8').catch(() => '[]');
    const kept = z.array(agentBackupEvent).safeParse(parsedJson(text));
    for (const event of kept.success ? kept.data : []) {
      reports.unrecorded.set(event.backupId, event);
      reports.running.set(event.serverId, event.backupId);
    }
    return reports;
  }

  /** Progress is only worth sending live; how a backup ended is kept until the API has recorded it. */
  emit(event: AgentBackupEvent): void {
    if (event.phase === 'running') {
      if (this.socket.connected) this.socket.volatile.emit('agent:backup', event);
      return;
    }
    this.unrecorded.set(event.backupId, event);
    // On disk before it is sent: an acknowledgement never comes before the end is kept.
    void this.keep().then(() => this.send(event));
  }

  /** Once connected again, after the hello. */
  resend(): void {
    for (const event of this.unrecorded.values()) this.send(event);
  }

  private keep(): Promise<void> {
    const text = JSON.stringify([...this.unrecorded.values()]);
    this.written = this.written
      .then(async () => {
        await mkdir(this.runDir, { recursive: true });
        await writeFile(`${this.file}.tmp`, text);
        await rename(`${this.file}.tmp`, this.file);
      })
      .catch(this.onWriteError);
    return this.written;
  }

  private send(event: AgentBackupEvent): void {
    if (!this.socket.connected) return; // sent once connected again
    // With a timeout, Socket.IO calls back with an error first (the event's own acknowledgement is optional,
    // progress is sent without one, so its type does not say so).
    this.socket.timeout(ACK_TIMEOUT_MS).emit('agent:backup', event, (...answer: unknown[]) => {
      if (this.unrecorded.get(event.backupId) !== event) return;
      if (answer[0]) return this.send(event);
      this.unrecorded.delete(event.backupId);
      if (this.running.get(event.serverId) === event.backupId) this.running.delete(event.serverId);
      void this.keep();
    });
  }
}

/**
 * Uploads written whose report the API has not acknowledged: sent again after every reconnect and when an
 * acknowledgement does not come, so the activity log does not miss one sent just as the connection broke.
 * Kept in memory only (bounded): an agent restarted before the acknowledgement loses the log entry, never the file.
 */
export class UploadReports {
  private readonly unrecorded = new Set<AgentUploadEvent>();

  constructor(private readonly socket: ApiSocket) {}

  emit(event: AgentUploadEvent): void {
    if (this.unrecorded.size >= MAX_UNRECORDED_UPLOADS) return;
    this.unrecorded.add(event);
    this.send(event);
  }

  /** Once connected again. */
  resend(): void {
    for (const event of this.unrecorded) this.send(event);
  }

  private send(event: AgentUploadEvent): void {
    if (!this.socket.connected) return; // sent once connected again
    this.socket.timeout(ACK_TIMEOUT_MS).emit('agent:upload', event, (...answer: unknown[]) => {
      if (!this.unrecorded.has(event)) return;
      if (answer[0]) return this.send(event);
      this.unrecorded.delete(event);
    });
  }
}
