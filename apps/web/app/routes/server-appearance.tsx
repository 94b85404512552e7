import {
  endpoints,
  motdColours,
  toTypedCodes,
  MOTD_LINE_MAX,
  MOTD_RAW_MAX,
  parseMotd,
  SERVER_ICON_UPLOAD_MAX_BYTES,
  shopItem,
  type AppearanceResult,
} from '@spawnpoint/contracts';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { ServerIcon, ShopIconArtwork } from '../components/pixel-art.tsx';
import { ServerListRow } from '../components/server-list-row.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { ApiFailure, call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { pageMeta } from '../lib/meta.ts';
import { powerServer } from '../lib/servers.ts';
import { notify } from '../lib/toasts.ts';
import { useServer } from '../lib/use-server.ts';
import { FILE_INPUT_CLASS } from '../components/field.tsx';

export const meta = () => pageMeta('servers-id-appearance', "Your Minecraft server's message of the day and icon.");

const formatButtons = [
  { code: 'l', label: 'Bold', sample: 'B', style: { fontWeight: 700 } },
  { code: 'o', label: 'Italic', sample: 'I', style: { fontStyle: 'italic' } },
  { code: 'n', label: 'Underlined', sample: 'U', style: { textDecoration: 'underline' } },
  { code: 'm', label: 'Strikethrough', sample: 'S', style: { textDecoration: 'line-through' } },
  { code: 'k', label: 'Obfuscated', sample: '?', style: {} },
  { code: 'r', label: 'Reset', sample: 'R', style: {} },
] as const;

/** The Appearance page: MOTD with codes and a live server-list preview, and the server icon. */
export default function ServerAppearancePage() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const [saved, setSaved] = useState<AppearanceResult | null>(null);
  const [motd, setMotd] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [iconError, setIconError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const editor = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const hintId = useId();

  useEffect(() => {
    if (load.status !== 'ready') return;
    call(endpoints.appearance, { params: { serverId: id } }).then(
      (result) => {
        setSaved(result);
        setMotd(toTypedCodes(result.motd));
      },
      () => undefined,
    );
  }, [id, load.status]);

  const parsed = parseMotd(motd);
  const canEdit = load.status === 'ready' && load.server.permissions.includes('appearance.update');
  const running = load.status === 'ready' && load.state === 'online';

  /** Puts a code at the cursor (or before the selection) and keeps the focus in the editor. */
  function insert(code: string) {
    const area = editor.current;
    const start = area?.selectionStart ?? motd.length;
    const end = area?.selectionEnd ?? motd.length;
    const next = `${motd.slice(0, start)}&${code}${motd.slice(start, end)}${motd.slice(end)}`;
    if (next.length > MOTD_RAW_MAX) return;
    setMotd(next);
    requestAnimationFrame(() => {
      area?.focus();
      area?.setSelectionRange(start + 2, end + 2);
    });
  }

  async function saveMotd() {
    setFieldError(null);
    try {
      const result = await call(endpoints.appearanceUpdate, { params: { serverId: id }, body: { motd } });
      setSaved(result);
      setMotd(toTypedCodes(result.motd));
      setPending(true);
      notify('success', 'Message of the day saved', 'It shows in the server list after the next start.');
    } catch (err) {
      if (err instanceof ApiFailure) setFieldError(err.fields.motd ?? err.message);
    }
  }

  async function chooseShopIcon(itemId: string, name: string) {
    setIconError(null);
    setSaved(await call(endpoints.appearanceShopIcon, { params: { serverId: id }, body: { itemId } }));
    setPending(true);
    notify('success', `${name} icon chosen`, 'It shows in the server list after the next start.');
  }

  async function uploadIcon(file: File) {
    setIconError(null);
    // Said before sending: the API would refuse it for the same reason.
    if (file.size > SERVER_ICON_UPLOAD_MAX_BYTES)
      return setIconError(`The picture may be at most ${SERVER_ICON_UPLOAD_MAX_BYTES / 1024 / 1024} MiB.`);
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    try {
      setSaved(await call(endpoints.appearanceIcon, { params: { serverId: id }, body: { image: btoa(binary) } }));
      setPending(true);
      notify('success', 'Icon saved', 'It shows in the server list after the next start.');
    } catch (err) {
      if (err instanceof ApiFailure) setIconError(err.fields.image ?? err.message);
    } finally {
      if (fileInput.current) fileInput.current.value = '';
    }
  }

  /** An icon the owner uploaded is not kept anywhere else: removing it is asked about first. */
  function removeIcon() {
    setIconError(null);
    openDialog('confirm', {
      title: 'Use the default icon?',
      message:
        'server-icon.png is deleted from the server. To show this icon again, upload it again (or choose it again if it came from the shop).',
      confirmLabel: 'Use the default icon',
      danger: true,
      onConfirm: async () => {
        setSaved(await call(endpoints.appearanceIconDelete, { params: { serverId: id } }));
        setPending(true);
        notify('success', 'Default icon', 'It shows in the server list after the next start.');
      },
    });
  }

  const name = load.status === 'ready' ? load.server.name : '';
  const players = load.status === 'ready' ? load.server.players : { online: 0, max: 0 };
  return (
    <ServerShell serverId={id} load={load}>
      {!saved ? (
        <p role="status">Loading…</p>
      ) : (
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

          <section aria-labelledby="motd-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
            <h2 id="motd-heading" className="text-lg font-semibold">
              Message of the day
            </h2>
            <div className="mt-3 flex flex-wrap gap-1" role="toolbar" aria-label="Colour and format codes">
              {Object.entries(motdColours).map(([code, colour]) => (
                <button
                  key={code}
                  type="button"
                  disabled={!canEdit}
                  onClick={() => insert(code)}
                  title={`&${code} ${colour.name.replace('_', ' ')}`}
                  aria-label={`Insert &${code}, ${colour.name.replace('_', ' ')}`}
                  className="h-8 w-8 rounded border border-slate-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 disabled:opacity-50"
                  style={{ backgroundColor: colour.hex }}
                />
              ))}
              {formatButtons.map((f) => (
                <button
                  key={f.code}
                  type="button"
                  disabled={!canEdit}
                  onClick={() => insert(f.code)}
                  title={`&${f.code} ${f.label}`}
                  aria-label={`Insert &${f.code}, ${f.label.toLowerCase()}`}
                  className="h-8 w-8 rounded border border-slate-300 bg-white text-sm text-slate-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 disabled:opacity-50"
                  style={f.style}
                >
                  {f.sample}
                </button>
              ))}
            </div>
            <label htmlFor="motd" className="mt-3 block text-sm font-medium text-slate-700">
              Two lines, {MOTD_LINE_MAX} characters each
            </label>
            <textarea
              id="motd"
              ref={editor}
              rows={2}
              value={motd}
              readOnly={!canEdit}
              maxLength={MOTD_RAW_MAX}
              spellCheck={false}
              aria-describedby={hintId}
              aria-invalid={parsed.problems.length > 0 || fieldError !== null}
              onChange={(e) => {
                setMotd(e.target.value);
                setFieldError(null);
              }}
              className="mt-1 block w-full resize-y rounded-md border border-slate-300 px-3 py-2 font-mono text-sm"
            />
            <p id={hintId} className="mt-1 text-xs text-slate-500">
              Codes start with &amp; or §: &amp;0–&amp;9 and &amp;a–&amp;f are colours, &amp;l bold, &amp;o italic, &amp;n underlined,
              &amp;m strikethrough, &amp;k obfuscated, &amp;r reset, &amp;#rrggbb any colour (Minecraft 1.16 and newer).
            </p>
            <div role="alert" aria-live="polite">
              {[...parsed.problems, ...(fieldError && !parsed.problems.includes(fieldError) ? [fieldError] : [])].map((p) => (
                <p key={p} className="mt-1 text-sm text-red-600">
                  {p}
                </p>
              ))}
            </div>
            <Button
              className="mt-3"
              disabled={!canEdit || parsed.problems.length > 0 || motd === toTypedCodes(saved.motd)}
              onClick={saveMotd}
            >
              Save message
            </Button>
          </section>

          <section aria-labelledby="icon-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
            <h2 id="icon-heading" className="text-lg font-semibold">
              Server icon
            </h2>
            <p className="text-sm text-slate-600">
              Any PNG, JPEG, GIF or WebP picture up to {SERVER_ICON_UPLOAD_MAX_BYTES / 1024 / 1024} MiB: it is cut to a square and scaled to
              64×64 (a 64×64 PNG is kept as it is). Without one the list shows the default icon.
            </p>
            <div className="mt-3 flex flex-wrap items-center gap-3">
              {saved.icon ? (
                <img src={saved.icon} alt="The current icon" width={64} height={64} style={{ imageRendering: 'pixelated' }} />
              ) : (
                <ServerIcon serverId={id} size={64} />
              )}
              <label htmlFor="icon-file" className="sr-only">
                Upload an icon (a picture, scaled to 64×64)
              </label>
              <input
                id="icon-file"
                ref={fileInput}
                type="file"
                accept="image/png,image/jpeg,image/gif,image/webp"
                disabled={!canEdit}
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  if (file) void uploadIcon(file);
                }}
                className={FILE_INPUT_CLASS}
              />
              {saved.icon ? (
                <Button variant="secondary" disabled={!canEdit} onClick={removeIcon}>
                  Use the default icon
                </Button>
              ) : null}
            </div>
            {iconError ? (
              <p role="alert" className="mt-2 text-sm text-red-600">
                {iconError}
              </p>
            ) : null}
            {saved.shopIcons.length ? (
              <div className="mt-4">
                <h3 className="text-sm font-semibold text-slate-800">Icons from the shop</h3>
                <ul className="mt-2 grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="shop-icons">
                  {saved.shopIcons.map((entry) => {
                    const item = shopItem(entry.itemId);
                    return (
                      <li
                        key={entry.itemId}
                        className="flex flex-col items-center gap-2 rounded-lg border border-slate-200 p-3 text-center text-sm"
                      >
                        {item?.kind === 'icon' ? <ShopIconArtwork art={item.art} label={entry.name} /> : null}
                        <span className="font-medium">{entry.name}</span>
                        {entry.inUse ? (
                          <span className="rounded-md bg-emerald-50 px-3 py-2 text-xs font-medium text-emerald-800">In use</span>
                        ) : entry.owned ? (
                          <Button
                            variant="secondary"
                            disabled={!canEdit}
                            onClick={() => chooseShopIcon(entry.itemId, entry.name)}
                            aria-label={`Use the ${entry.name} icon`}
                          >
                            Use
                          </Button>
                        ) : (
                          <Link to={`/servers/${id}/shop`} className="text-xs font-medium text-brand-700 underline">
                            Unlock in the shop
                          </Link>
                        )}
                      </li>
                    );
                  })}
                </ul>
              </div>
            ) : null}
          </section>

          <section className="rounded-xl border border-sky-200 bg-sky-50 p-4 text-sm text-sky-900" aria-live="polite">
            <p>
              The message and the icon apply at the next start of the server: Java servers read <code>server.properties</code> and{' '}
              <code>server-icon.png</code>, and the built-in runtime sends both, with their colours, in its server-list answer.
              {pending && running ? ' Restart the server to show them now.' : ''}
            </p>
            {running && load.status === 'ready' && load.server.permissions.includes('power.stop') ? (
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
      )}
    </ServerShell>
  );
}
