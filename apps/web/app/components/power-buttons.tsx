import type { PermissionKey, PowerAction, ServerState } from '@spawnpoint/contracts';
import { endpoints, eulaMessages, MINECRAFT_EULA_URL, powerPreconditions } from '@spawnpoint/contracts';
import { useState } from 'react';
import { ApiFailure, call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { powerServer } from '../lib/servers.ts';
import { setServerState } from '../lib/user-store.ts';
import { Button } from './button.tsx';

const labels: Record<PowerAction, string> = { start: 'Start', stop: 'Stop', restart: 'Restart', kill: 'Kill' };
/** The key each action needs (as its endpoint in contracts names it). */
const needs: Record<PowerAction, PermissionKey> = { start: 'power.start', stop: 'power.stop', restart: 'power.stop', kill: 'power.stop' };

function allowed(action: PowerAction, state: ServerState): boolean {
  const pre = powerPreconditions[action];
  // Kill has nothing to end on a server that does not run (offline, sleeping, its files on their way to or
  // from storage).
  return pre === 'any' ? !['offline', 'sleeping', 'uploading', 'downloading'].includes(state) : pre.includes(state);
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
  eulaAccepted = null,
}: {
  serverId: string;
  state: ServerState;
  permissions: readonly PermissionKey[];
  actions?: PowerAction[];
  /** Java servers: false until the Minecraft EULA is accepted (Start asks first); null when not needed or not known. */
  eulaAccepted?: boolean | null;
}) {
  const [accepted, setAccepted] = useState(false);
  const offered = actions.filter((action) => permissions.includes(needs[action]));
  if (offered.length === 0) return <p className="text-sm text-slate-500">Your role on this server cannot start or stop it.</p>;
  async function run(action: PowerAction) {
    try {
      const result = await powerServer(serverId, action);
      setServerState(serverId, result.state as ServerState);
    } catch (failure) {
      // The API client's error toast explains; a Java server whose EULA was not accepted yet (a page that did not know) asks.
      if (action === 'start' && failure instanceof ApiFailure && failure.message === eulaMessages.required) askEula();
    }
  }
  // The game's licence: accepted once per server, by whoever may change its settings, then it starts.
  function askEula() {
    if (!permissions.includes('properties.update')) {
      openDialog('confirm', {
        title: 'The Minecraft EULA is not accepted yet',
        message: "Only the server's owner or an administrator can accept it for this server. Ask them to start it once.",
        link: { href: MINECRAFT_EULA_URL, label: 'Read the Minecraft EULA (opens in a new tab)' },
        confirmLabel: 'OK',
        onConfirm: () => undefined,
      });
      return;
    }
    openDialog('confirm', {
      title: 'Accept the Minecraft EULA?',
      message:
        "This server runs Mojang's Minecraft server software, which may only be run by someone who accepts the Minecraft End User License Agreement. Accepting is recorded for this server, and then it starts.",
      link: { href: MINECRAFT_EULA_URL, label: 'Read the Minecraft EULA (opens in a new tab)' },
      confirmLabel: 'Accept and start',
      onConfirm: async () => {
        await call(endpoints.serverEula, { params: { serverId }, body: { accept: true } });
        setAccepted(true);
        await run('start');
      },
    });
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
              : action === 'start' && eulaAccepted === false && !accepted
                ? askEula()
                : run(action)
          }
        >
          {labels[action]}
        </Button>
      ))}
    </div>
  );
}
