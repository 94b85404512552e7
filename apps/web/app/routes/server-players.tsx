import { endpoints, type PlayerActionRequest, type ServerPlayers, type ServerState } from '@spawnpoint/contracts';
import { useEffect, useRef } from 'react';
import { useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { EndpointView } from '../components/endpoint-view.tsx';
import { AddForm, BanForm } from '../components/players/player-forms.tsx';
import { Empty, PlayerRows, Section, WhitelistSwitch } from '../components/players/player-list.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-players', 'Players, operators, whitelist and bans of your Minecraft server.');

// The online list comes from the game every few seconds.
const REFRESH_MS = 5000;

/** What a change did, in the words of the toast. */
function doneMessage(change: PlayerActionRequest): string {
  switch (change.action) {
    case 'kick':
      return `${change.name} was kicked.`;
    case 'op':
      return `${change.name} is now an operator.`;
    case 'deop':
      return `${change.name} is no longer an operator.`;
    case 'whitelist-add':
      return `${change.name} was added to the whitelist.`;
    case 'whitelist-remove':
      return `${change.name} was removed from the whitelist.`;
    case 'ban':
      return `${change.name} was banned.`;
    case 'pardon':
      return `${change.name} was unbanned.`;
    case 'whitelist':
      return `The whitelist is now ${change.enabled ? 'on' : 'off'}.`;
  }
}

/** What each list's section needs: the lists, whether they can change now, and how to send a change. */
interface ListProps {
  players: ServerPlayers;
  canChange: boolean;
  change: (request: PlayerActionRequest) => Promise<void>;
}

export default function ServerPlayersPage() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const state = load.status === 'ready' ? load.state : null;
  const players = useEndpoint(
    endpoints.serverPlayers,
    { params: { serverId: id } },
    { enabled: load.status === 'ready', refreshMs: REFRESH_MS, failureMessage: 'The players could not be loaded. Please reload the page.' },
  );
  // A start or stop shows at once (the lists say how changes apply), not at the next refresh.
  const seenState = useRef(state);
  useEffect(() => {
    if (seenState.current !== null && state !== seenState.current) void players.reload();
    seenState.current = state;
  }, [state, players.reload]);

  /** Sends one change; the answer is the lists as they are after it. */
  const change = async (request: PlayerActionRequest) => {
    players.set(await call(endpoints.serverPlayersUpdate, { params: { serverId: id }, body: request }));
    notify('success', doneMessage(request));
  };

  // A sleeping server is stopped too: its files are edited as an offline server's.
  const stopped = state === 'offline' || state === 'sleeping';
  const canChange = state === 'online' || stopped;
  return (
    <ServerShell serverId={id} load={load}>
      <EndpointView load={players.load} loading="Loading…" className="">
        {(data) => (
          <div className="space-y-6">
            <HowChangesApply state={state} problems={data.problems} />
            <OnlineSection players={data} state={state} change={change} />
            <OperatorSection players={data} canChange={canChange} change={change} />
            <WhitelistSection players={data} canChange={canChange} change={change} />
            <BanSection players={data} canChange={canChange} change={change} />
          </div>
        )}
      </EndpointView>
    </ServerShell>
  );
}

/** Whether changes go through the console or into the files, and the entries of those files that were left out. */
function HowChangesApply({ state, problems }: { state: ServerState | null; problems: string[] }) {
  const stopped = state === 'offline' || state === 'sleeping';
  return (
    <>
      <p className="text-sm text-slate-600" role="status">
        {state === 'online'
          ? 'The server is running: changes apply at once, through its console.'
          : stopped
            ? 'The server is stopped: changes are saved to its files (ops.json, whitelist.json, banned-players.json) and apply when it starts.'
            : 'Changes can be made once the server is running or stopped.'}
      </p>
      {problems.length ? (
        <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" role="alert">
          <p className="font-medium">Some entries of the player files could not be read and are left out:</p>
          <ul className="mt-1 list-disc pl-5 break-words">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}

function OnlineSection({ players, state, change }: Omit<ListProps, 'canChange'> & { state: ServerState | null }) {
  return (
    <Section title={`Online (${players.online.length})`}>
      {players.online.length === 0 ? (
        <Empty>{state === 'online' ? 'Nobody is online.' : 'Nobody is online: the server is not running.'}</Empty>
      ) : (
        <PlayerRows
          names={players.online.map((name) => ({ name }))}
          action={(p) => (
            <Button
              variant="secondary"
              aria-label={`Kick ${p.name}`}
              disabled={state !== 'online'}
              onClick={() =>
                openDialog('input', {
                  title: `Kick ${p.name}?`,
                  message: 'They are disconnected and can join again.',
                  label: 'Reason (optional)',
                  onContinue: (reason) => change({ action: 'kick', name: p.name, reason: reason.trim() || undefined }),
                })
              }
            >
              Kick
            </Button>
          )}
        />
      )}
    </Section>
  );
}

function OperatorSection({ players, canChange, change }: ListProps) {
  return (
    <Section title="Operators" description="Operators may use every command in the game.">
      <AddForm id="op" label="Player name" submit="Make operator" disabled={!canChange} onAdd={(name) => change({ action: 'op', name })} />
      <PlayerRows
        names={players.operators}
        empty="No operators."
        action={(p) => (
          <Button
            variant="secondary"
            aria-label={`Remove ${p.name} from the operators`}
            disabled={!canChange}
            onClick={() => change({ action: 'deop', name: p.name })}
          >
            Remove
          </Button>
        )}
      />
    </Section>
  );
}

function WhitelistSection({ players, canChange, change }: ListProps) {
  return (
    <Section title="Whitelist" description="When it is on, only players on it (and operators) can join.">
      <WhitelistSwitch
        enabled={players.whitelistEnabled}
        disabled={!canChange}
        onChange={(enabled) => change({ action: 'whitelist', enabled })}
      />
      <AddForm
        id="whitelist"
        label="Player name"
        submit="Add to whitelist"
        disabled={!canChange}
        onAdd={(name) => change({ action: 'whitelist-add', name })}
      />
      <PlayerRows
        names={players.whitelist}
        empty="Nobody is on the whitelist."
        action={(p) => (
          <Button
            variant="secondary"
            aria-label={`Remove ${p.name} from the whitelist`}
            disabled={!canChange}
            onClick={() => change({ action: 'whitelist-remove', name: p.name })}
          >
            Remove
          </Button>
        )}
      />
    </Section>
  );
}

function BanSection({ players, canChange, change }: ListProps) {
  return (
    <Section title="Bans" description="A banned player is refused at login with the reason, and kicked if online.">
      <BanForm disabled={!canChange} onBan={(name, reason) => change({ action: 'ban', name, reason })} />
      <PlayerRows
        names={players.bans}
        empty="Nobody is banned."
        detail={(p) => {
          const ban = players.bans.find((b) => b.name === p.name);
          return ban ? `${ban.reason}${ban.created ? ` · ${ban.created.slice(0, 10)}` : ''}` : null;
        }}
        action={(p) => (
          <Button
            variant="secondary"
            aria-label={`Unban ${p.name}`}
            disabled={!canChange}
            onClick={() => change({ action: 'pardon', name: p.name })}
          >
            Unban
          </Button>
        )}
      />
    </Section>
  );
}
