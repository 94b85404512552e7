import { agentEndpoints, type restoreSteps } from '@spawnpoint/contracts';
import type { AppContext } from '../context.ts';
import type { ServerRow } from '../db/rows.ts';
import { ApiError } from '../http/errors.ts';

/** The game services a restore uses. */
export type RestorerServices = Pick<AppContext['game'], 'hub' | 'power' | 'mover' | 'nodes'>;
export type RestoreStep = (typeof restoreSteps)[number];

const STOP_WAIT_MS = 60_000;
const START_WAIT_MS = 60_000;
/** A restore unpacks the whole world on the node: the job waits for it this long (the HTTP answer never does). */
const RESTORE_WAIT_MS = 30 * 60_000;

/**
 * Restores a backup: stops the server, restores into staging and swaps (on the node), starts it again if it ran —
 * all while holding the server's power line, so no start or stop slips in between the steps. It can take
 * longer than any HTTP wait (a large world), so it is a job: the answer comes at once, and its steps and
 * end reach the server's pages as `server:restore` (the backup list says a restore runs meanwhile).
 */
export function backupRestorer(
  game: RestorerServices,
  server: ServerRow,
  backupId: string,
  step: (s: RestoreStep) => void,
): Promise<boolean> {
  const { hub, power, mover, nodes } = game;
  return power.exclusive(server, async (act) => {
    let at = server;
    if (hub.inStorage(server.id)) {
      // Fetched onto the node it would wake on (`downloading`), where it stays asleep, restored.
      step('fetching');
      at = await mover.fetch(await mover.prepareStart(server));
      hub.hold(server.id, 'sleeping');
    }
    // A start or stop that went just before is let finish: the restore then goes on from where it ended.
    const settled = (s: string) => s === 'online' || s === 'offline' || s === 'sleeping';
    if (!settled(hub.stateOf(server.id))) await hub.waitForState(server.id, settled, START_WAIT_MS);
    const state = hub.stateOf(server.id);
    const wasRunning = state === 'online';
    // A sleeping server is restored as a stopped one and goes back to sleep after.
    if (state === 'sleeping') hub.sleepWhenStopped(server.id, true);
    if (state !== 'offline' && state !== 'sleeping' && !wasRunning)
      throw new ApiError('INVALID_STATE', undefined, `Cannot restore while the server is ${state.replace('_', ' ')}.`);
    if (wasRunning) {
      step('stopping');
      await act('stop');
      if (!(await hub.waitForState(server.id, (s) => s === 'offline', STOP_WAIT_MS)))
        throw new ApiError('INVALID_STATE', undefined, 'The server did not stop in time, so nothing was restored.');
    }
    step('restoring');
    await nodes.call(at.nodeId, agentEndpoints.backupRestore, { params: { serverId: server.id, backupId } }, RESTORE_WAIT_MS);
    if (!wasRunning) return false;
    step('starting');
    // Says whether the server really came back, not merely that it was asked to.
    return act('start').then(
      () => hub.waitForState(server.id, (s) => s === 'online', START_WAIT_MS),
      () => false,
    );
  });
}
