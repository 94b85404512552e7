import { downgradeMessage, endpoints, newestVersionFirst, softwareTitle } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { listSoftware } from '../lib/servers.ts';
import { notify } from '../lib/toasts.ts';
import { Button } from './button.tsx';

/**
 * The server's Minecraft version: another one of those its software offers (for Java software, what the vendor
 * publishes and its node can run), applied at the next start after a backup the API makes first. Going
 * back to an older version is said plainly and confirmed: a world saved by a newer version may not load.
 */
export function VersionSetting({
  serverId,
  software,
  initial,
  canEdit,
}: {
  serverId: string;
  software: string;
  initial: string;
  canEdit: boolean;
}) {
  const [current, setCurrent] = useState(initial);
  const [versions, setVersions] = useState<string[] | null>(null);
  const [chosen, setChosen] = useState(initial);
  useEffect(() => {
    listSoftware().then(
      (list) => setVersions(newestVersionFirst([...(list.find((s) => s.id === software)?.versions ?? []), initial])),
      () => setVersions([initial]),
    );
  }, [software, initial]);

  const downgrade = chosen !== current && newestVersionFirst([chosen, current])[0] === current;
  const change = () =>
    openDialog('confirm', {
      title: downgrade ? `Go back to Minecraft ${chosen}?` : `Change to Minecraft ${chosen}?`,
      message: downgrade
        ? `${downgradeMessage(current, chosen)} The server runs ${chosen} from its next start.`
        : `A backup is made first; the server runs ${chosen} from its next start, and players join with ${chosen}.`,
      confirmLabel: downgrade ? 'Back up and downgrade' : 'Back up and change',
      danger: downgrade,
      onConfirm: async () => {
        const details = await call(endpoints.serverVersion, {
          params: { serverId },
          body: { version: chosen, confirmDowngrade: downgrade },
        });
        setCurrent(details.version);
        notify('success', `Minecraft ${details.version} from the next start`, `A backup of ${current} was made first.`);
      },
    });

  return (
    <section aria-labelledby="version-heading" className="mt-6 max-w-2xl rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="version-heading" className="text-lg font-semibold">
        Minecraft version
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        {softwareTitle(software)} server on Minecraft <span data-testid="current-version">{current}</span>. Players join with that version.
        Another one applies at the next start, after a backup.
      </p>
      <div className="mt-3 flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor="version-choice" className="block text-sm font-medium text-slate-700">
            Version
          </label>
          <select
            id="version-choice"
            value={chosen}
            disabled={!canEdit || versions === null}
            onChange={(e) => setChosen(e.target.value)}
            className="mt-1 block rounded-md border border-slate-300 px-3 py-2"
          >
            {(versions ?? [current]).map((v) => (
              <option key={v} value={v}>
                {v}
                {v === current ? ' (now)' : ''}
              </option>
            ))}
          </select>
        </div>
        <Button variant="secondary" disabled={!canEdit || chosen === current} onClick={change}>
          Change version
        </Button>
      </div>
    </section>
  );
}
