// The Plugins page's installed plugins: one row each, with its settings, its version and removal.
import { builtinPlugin, javaPluginSourceNames, type InstalledPlugin, type PluginChangeRequest } from '@spawnpoint/contracts';
import { useState } from 'react';
import { Button } from '../button.tsx';
import { openDialog } from '../../lib/dialogs.ts';
import { useSending } from '../../lib/use-sending.ts';
import { SettingsForm } from './settings-form.tsx';
import { VersionPicker } from './java-catalogue.tsx';

export function InstalledRow({
  serverId,
  plugin: p,
  update,
  mayManage,
  change,
}: {
  serverId: string;
  plugin: InstalledPlugin;
  /** A newer version in its catalogue. */
  update: string | null;
  mayManage: boolean;
  change: (request: PluginChangeRequest, done: string) => Promise<void>;
}) {
  const { sending, send } = useSending();
  const [editing, setEditing] = useState(false);
  const [choosing, setChoosing] = useState(false);
  const manifest = p.source === 'builtin' ? builtinPlugin(p.id) : undefined;
  // A refusal is shown as a toast by the call.
  const toggle = () =>
    void send(() => change({ action: p.enabled ? 'disable' : 'enable', id: p.id }, `${p.name} turned ${p.enabled ? 'off' : 'on'}`)).catch(
      () => undefined,
    );
  const remove = () =>
    openDialog('confirm', {
      title: `Remove ${p.name}?`,
      message:
        p.source === 'upload'
          ? `${p.folder}/${p.file} is deleted.`
          : 'Its settings are forgotten; what players saved with it stays in the plugins folder.',
      confirmLabel: 'Remove',
      danger: true,
      onConfirm: () => change({ action: 'remove', id: p.id }, `${p.name} removed`),
    });
  return (
    <li className="grid gap-2 py-3 text-sm" data-testid="installed-plugin">
      <PluginSummary plugin={p} update={update} />
      {mayManage ? (
        <div className="flex flex-wrap gap-2">
          {update ? (
            <Button
              onClick={() =>
                void send(() => change({ action: 'update', id: p.id }, `${p.name} updated to ${update}`)).catch(() => undefined)
              }
              busy={sending}
              aria-label={`Update ${p.name} to ${update}`}
            >
              Update
            </Button>
          ) : null}
          <Button variant="secondary" onClick={toggle} disabled={sending} aria-label={`${p.enabled ? 'Turn off' : 'Turn on'} ${p.name}`}>
            {p.enabled ? 'Turn off' : 'Turn on'}
          </Button>
          {(p.source === 'modrinth' || p.source === 'hangar') && p.projectId ? (
            <Button
              variant="secondary"
              onClick={() => setChoosing((c) => !c)}
              aria-expanded={choosing}
              aria-label={`Versions of ${p.name}`}
            >
              Versions
            </Button>
          ) : null}
          {manifest && manifest.settings.length ? (
            <Button variant="secondary" onClick={() => setEditing((e) => !e)} aria-expanded={editing} aria-label={`Settings of ${p.name}`}>
              Settings
            </Button>
          ) : null}
          <Button variant="danger" onClick={remove} aria-label={`Remove ${p.name}`}>
            Remove
          </Button>
        </div>
      ) : null}
      {choosing && (p.source === 'modrinth' || p.source === 'hangar') && p.projectId ? (
        <VersionPicker
          serverId={serverId}
          source={p.source}
          projectId={p.projectId}
          name={p.name}
          onChoose={async (versionId, version) => {
            await change({ action: 'update', id: p.id, versionId }, `${p.name} ${version} installed`);
            setChoosing(false);
          }}
        />
      ) : null}
      {editing && manifest ? (
        <SettingsForm
          plugin={p}
          fields={manifest.settings}
          onSave={async (settings) => {
            await change({ action: 'settings', id: p.id, settings }, `${p.name} settings saved`);
            setEditing(false);
          }}
        />
      ) : null}
    </li>
  );
}

/** What is installed: its name, where it comes from and its version, on or off, and a newer version. */
function PluginSummary({ plugin: p, update }: { plugin: InstalledPlugin; update: string | null }) {
  return (
    <>
      <div className="flex flex-wrap items-baseline justify-between gap-x-3">
        <span className="min-w-0 font-medium break-words text-slate-900">{p.name}</span>
        <span className="text-xs text-slate-500">
          {p.source === 'upload'
            ? `Your file ${p.file}${p.version ? ` · version ${p.version}` : ''} · SHA-256 ${p.sha256?.slice(0, 12)}…`
            : p.source === 'builtin'
              ? `Version ${p.version}`
              : `${javaPluginSourceNames[p.source]} · version ${p.version}`}
        </span>
      </div>
      <span className="flex flex-wrap items-center gap-2">
        <span className={p.enabled ? 'text-emerald-700' : 'text-slate-500'}>{p.enabled ? 'On' : 'Off'}</span>
        {update ? (
          <span className="rounded-full bg-sky-100 px-2 py-0.5 text-xs font-medium text-sky-800" data-testid="update-available">
            Update available: {update}
          </span>
        ) : null}
      </span>
    </>
  );
}
