import type { PermissionKey, PowerAction, ServerState } from '@spawnpoint/contracts';
import { powerPreconditions } from '@spawnpoint/contracts';
import { openDialog } from '../lib/dialogs.ts';
import { powerServer } from '../lib/servers.ts';
import { setServerState } from '../lib/user-store.ts';
import { Button } from './button.tsx';

const labels: Record<PowerAction, string> = { start: 'Start', stop: 'Stop', restart: 'Restart', kill: 'Kill' };
/** The key each action needs (as its endpoint in contracts names it). */
const needs: Record<PowerAction, PermissionKey> = { start: 'power.start', stop: 'power.stop', restart: 'power.stop', kill: 'power.stop' };

function allowed(action: PowerAction, state: ServerState): boolean {
  const pre = powerPreconditions[action];
  // Kill has nothing to end on a server that does not run (offline or sleeping).
  return pre === 'any' ? state !== 'offline' && state !== 'sleeping' : pre.includes(state);
}

/**
 * Power controls; only those the caller's role allows (the server's `permissions`, from the API) are
 * shown; each is enabled only in the states where the server accepts it, and is disabled while its own
 * request is under way (the Button waits for `run`).
 */
export function PowerButtons({
  serverId,
  state,
  permissions,
  actions = ['start', 'stop', 'restart', 'kill'],
}: {
  serverId: string;
  state: ServerState;
  permissions: readonly PermissionKey[];
  actions?: PowerAction[];
}) {
  const offered = actions.filter((action) => permissions.includes(needs[action]));
  if (offered.length === 0) return <p className="text-sm text-slate-500">Your role on this server cannot start or stop it.</p>;
  async function run(action: PowerAction) {
    try {
      const result = await powerServer(serverId, action);
      setServerState(serverId, result.state as ServerState);
    } catch {
      // the §8 toast explains
    }
  }
  return (
    <div className="flex flex-wrap gap-2">
      {offered.map((action) => (
        <Button
          key={action}
          variant={action === 'start' ? 'primary' : action === 'kill' ? 'danger' : 'secondary'}
          disabled={!allowed(action, state)}
          onClick={() =>
            action === 'kill'
              ? openDialog('confirm', {
                  title: 'Kill the server?',
                  message: 'Killing ends the process at once without saving. Players lose what happened since the last save.',
                  confirmLabel: 'Kill',
                  danger: true,
                  onConfirm: () => run('kill'),
                })
              : run(action)
          }
        >
          {labels[action]}
        </Button>
      ))}
    </div>
  );
}
