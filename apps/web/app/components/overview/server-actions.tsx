import { endpoints, type ServerDetails } from '@spawnpoint/contracts';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { call } from '../../lib/api.ts';
import { openDialog } from '../../lib/dialogs.ts';
import { deleteServer, updateAppearance } from '../../lib/servers.ts';
import { notify } from '../../lib/toasts.ts';
import { useSending } from '../../lib/use-sending.ts';
import { fetchServers } from '../../lib/user-store.ts';
import { Button } from '../button.tsx';

/** Deletes the server for good, after its name is typed. */
export function DeleteServer({ server }: { server: ServerDetails }) {
  const id = server.serverId;
  const navigate = useNavigate();
  return (
    <section aria-labelledby="danger-heading" className="rounded-xl border border-red-200 bg-white p-6">
      <h2 id="danger-heading" className="text-lg font-semibold text-red-700">
        Delete this server
      </h2>
      <p className="mt-1 text-sm text-slate-600">The server, its world and every file are removed for good.</p>
      <Button
        variant="danger"
        className="mt-4"
        onClick={() =>
          openDialog('confirm', {
            title: `Delete ${server.name}?`,
            message: 'This stops the server and removes its world and every file. This cannot be undone.',
            confirmLabel: 'Delete server',
            danger: true,
            typeToConfirm: server.name,
            onConfirm: async () => {
              await deleteServer(id);
              notify('success', 'Server deleted', `${server.name} and its files were removed.`);
              navigate('/servers');
            },
          })
        }
      >
        Delete server
      </Button>
    </section>
  );
}

/** A member leaves the server. */
export function LeaveServer({ server }: { server: ServerDetails }) {
  const id = server.serverId;
  const navigate = useNavigate();
  return (
    <section aria-labelledby="leave-heading" className="rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="leave-heading" className="text-lg font-semibold">
        Leave this server
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        You stop being a member at once. Invitations you sent that nobody accepted yet are revoked.
      </p>
      <Button
        variant="secondary"
        className="mt-4"
        onClick={() =>
          openDialog('confirm', {
            title: `Leave ${server.name}?`,
            message: 'Only the owner or an administrator can invite you back.',
            confirmLabel: 'Leave server',
            danger: true,
            onConfirm: async () => {
              await call(endpoints.memberLeave, { params: { serverId: id } });
              await fetchServers();
              notify('success', 'You left the server', `${server.name} is no longer in your list.`);
              navigate('/servers');
            },
          })
        }
      >
        Leave server
      </Button>
    </section>
  );
}

/** Opt in to (or out of) the public server list at /server-list. */
export function ListingToggle({ serverId, initial }: { serverId: string; initial: boolean }) {
  const [listed, setListed] = useState(initial);
  const { sending: busy, send } = useSending();
  return (
    <section aria-labelledby="listing-heading" className="rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="listing-heading" className="text-lg font-semibold">
        Public server list
      </h2>
      <label className="mt-3 flex items-start gap-3">
        <input
          type="checkbox"
          className="mt-1 size-4 accent-brand-600"
          checked={listed}
          disabled={busy}
          onChange={(event) => {
            const next = event.target.checked;
            void send(async () => {
              setListed(next);
              try {
                const server = await updateAppearance(serverId, { publicListing: next });
                setListed(server.publicListing);
                notify('success', server.publicListing ? 'Listed publicly' : 'Hidden from the list');
              } catch {
                // The API client's error toast said why; the box goes back to what is saved.
                setListed(!next);
              }
            });
          }}
        />
        <span>
          <span className="font-medium">Show on the public server list</span>
          <span className="block text-sm text-slate-600">
            Anyone can then see this server's name, version, state, player count and address on{' '}
            <Link to="/server-list" className="underline">
              the server list
            </Link>
            . Nothing else about you or the server is shown.
          </span>
        </span>
      </label>
    </section>
  );
}
