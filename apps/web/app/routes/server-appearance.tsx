import { endpoints, parseMotd, toTypedCodes, type AppearanceResult, type ServerDetails, type ServerState } from '@spawnpoint/contracts';
import { useState } from 'react';
import { useParams } from 'react-router';
import { IconEditor } from '../components/appearance/icon-editor.tsx';
import { MotdEditor } from '../components/appearance/motd-editor.tsx';
import { Button } from '../components/button.tsx';
import { EndpointView } from '../components/endpoint-view.tsx';
import { ServerListRow } from '../components/server-list-row.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { pageMeta } from '../lib/meta.ts';
import { powerServer } from '../lib/servers.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-appearance', "Your Minecraft server's message of the day and icon.");

/** The Appearance page: MOTD with codes and a live server-list preview, and the server icon. */
export default function ServerAppearancePage() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const appearance = useEndpoint(
    endpoints.appearance,
    { params: { serverId: id } },
    { enabled: load.status === 'ready', failureMessage: 'The appearance could not be loaded. Please reload the page.' },
  );
  return (
    <ServerShell serverId={id} load={load}>
      {load.status === 'ready' ? (
        <EndpointView load={appearance.load} loading="Loading…" className="">
          {(saved) => <AppearanceEditor server={load.server} state={load.state} saved={saved} onSaved={appearance.set} />}
        </EndpointView>
      ) : null}
    </ServerShell>
  );
}

function AppearanceEditor({
  server,
  state,
  saved,
  onSaved,
}: {
  server: ServerDetails;
  state: ServerState;
  saved: AppearanceResult;
  onSaved: (result: AppearanceResult) => void;
}) {
  const id = server.serverId;
  const [motd, setMotd] = useState(() => toTypedCodes(saved.motd));
  // Something saved that the running game does not show yet.
  const [pending, setPending] = useState(false);
  const parsed = parseMotd(motd);
  const canEdit = server.permissions.includes('appearance.update');
  const running = state === 'online';
  const save = (result: AppearanceResult) => {
    onSaved(result);
    setPending(true);
  };
  const name = server.name;
  const players = server.players;
  return (
    <div className="grid max-w-3xl grid-cols-1 gap-6">
      <section aria-labelledby="preview-heading" className="min-w-0">
        <h2 id="preview-heading" className="text-lg font-semibold">
          Preview
        </h2>
        <p className="text-sm text-slate-600">How Minecraft’s server list shows it, updated as you type.</p>
        <div className="mt-3">
          <ServerListRow name={name} icon={saved.icon} fallbackId={id} lines={parsed.lines} players={players} />
        </div>
      </section>
      <MotdEditor serverId={id} saved={saved} motd={motd} setMotd={setMotd} parsed={parsed} canEdit={canEdit} onSaved={save} />
      <IconEditor serverId={id} appearance={saved} canEdit={canEdit} onSaved={save} />
      <section className="rounded-xl border border-sky-200 bg-sky-50 p-4 text-sm text-sky-900" aria-live="polite">
        <p>
          The message and the icon apply at the next start of the server: Java servers read <code>server.properties</code> and{' '}
          <code>server-icon.png</code>, and the built-in runtime sends both, with their colours, in its server-list answer.
          {pending && running ? ' Restart the server to show them now.' : ''}
        </p>
        {running && server.permissions.includes('power.stop') ? (
          <Button
            variant="secondary"
            className="mt-3"
            onClick={async () => {
              await powerServer(id, 'restart');
              setPending(false);
            }}
          >
            Restart now
          </Button>
        ) : null}
      </section>
    </div>
  );
}
