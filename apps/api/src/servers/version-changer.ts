import { downgradeMessage, findSoftware, javaMajorFor, newestVersionFirst } from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { DbOrTx } from './activity.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { BackupJobs } from './backup-jobs.ts';
import type { ServerRow } from '../db/rows.ts';
import { softwareOffer } from './software-offer.ts';

/** How long the change waits for its backup: a world that takes longer is refused, unchanged. */
const BACKUP_WAIT_MS = 10 * 60_000;

/** Whether `a` is an older Minecraft version than `b`. */
const older = (a: string, b: string) => a !== b && newestVersionFirst([a, b])[0] === b;

/**
 * versionChanger: moves a server to another Minecraft version of its software — one its vendor publishes
 * (for Java software, as a connected node read it) and, for a Java server, one its node has the Java for.
 * A backup is made first and waited for (the way back); the new version is recorded and applies at the
 * next start (the node installs it from the spec then; the game converts the world). Going to an older
 * version is refused unless confirmed: worlds saved by a newer version may not load in an older one.
 */
export async function versionChanger(
  deps: { db: Db; nodes: NodeRegistry; backups: BackupJobs },
  server: ServerRow,
  request: { version: string; confirmDowngrade: boolean },
  /** The caller may delete backups, so the backup may rotate the oldest unlocked one out. */
  mayRotate: boolean,
  record: (tx: DbOrTx, from: string, to: string) => Promise<void>,
): Promise<ServerRow> {
  const software = findSoftware(server.software);
  const { version } = request;
  if (!software) throw new ApiError('INVALID_STATE', undefined, 'This server runs software that is no longer offered.');
  if (version === server.version) throw new ApiError('INVALID_INPUT', { version: `The server already runs Minecraft ${version}.` });
  const offered =
    software.runtime === 'java-jar'
      ? ((await softwareOffer(deps.nodes)).find((s) => s.id === software.id)?.published ?? [])
      : (software.versions as readonly string[]);
  if (!offered.includes(version)) throw new ApiError('INVALID_INPUT', { version: `${software.name} does not offer version ${version}.` });
  if (software.runtime === 'java-jar') {
    const needed = javaMajorFor(version);
    if (!(deps.nodes.javaMajorsOf(server.nodeId) ?? []).some((j) => j >= needed))
      throw new ApiError('INVALID_INPUT', {
        version: `This server's node has no Java ${needed}, which Minecraft ${version} needs. Choose another version.`,
      });
  }
  if (older(version, server.version) && !request.confirmDowngrade)
    throw new ApiError('INVALID_STATE', undefined, downgradeMessage(server.version, version));

  const { finished } = await deps.backups.create(server, null, mayRotate);
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    finished,
    new Promise<{ ok: false; error: string }>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, error: 'it took longer than 10 minutes' }), BACKUP_WAIT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  if (!ended.ok)
    throw new ApiError(
      'INVALID_STATE',
      undefined,
      `The backup before the change failed (${ended.error ?? 'no reason given'}); nothing was changed.`,
    );

  return deps.db.transaction(async (tx) => {
    const [row] = await tx.update(servers).set({ version }).where(eq(servers.id, server.id)).returning();
    if (!row) throw new ApiError('NOT_FOUND');
    await record(tx, server.version, version);
    return row;
  });
}
