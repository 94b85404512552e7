import { endpoints, SERVER_ICON_UPLOAD_MAX_BYTES, shopItem, type AppearanceResult } from '@spawnpoint/contracts';
import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { ApiFailure, call } from '../../lib/api.ts';
import { openDialog } from '../../lib/dialogs.ts';
import { notify } from '../../lib/toasts.ts';
import { Button } from '../button.tsx';
import { FILE_INPUT_CLASS } from '../field.tsx';
import { ServerIcon, ShopIconArtwork } from '../pixel-art.tsx';

interface IconProps {
  serverId: string;
  appearance: AppearanceResult;
  canEdit: boolean;
  onSaved: (result: AppearanceResult) => void;
}

/** The server icon: the current one, an upload, back to the default, and the icons bought in the shop. */
export function IconEditor({ serverId: id, appearance: saved, canEdit, onSaved }: IconProps) {
  const [iconError, setIconError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  async function uploadIcon(file: File) {
    setIconError(null);
    // Said before sending: the API would refuse it for the same reason.
    if (file.size > SERVER_ICON_UPLOAD_MAX_BYTES)
      return setIconError(`The picture may be at most ${SERVER_ICON_UPLOAD_MAX_BYTES / 1024 / 1024} MiB.`);
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    try {
      onSaved(await call(endpoints.appearanceIcon, { params: { serverId: id }, body: { image: btoa(binary) } }));
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
        onSaved(await call(endpoints.appearanceIconDelete, { params: { serverId: id } }));
        notify('success', 'Default icon', 'It shows in the server list after the next start.');
      },
    });
  }

  return (
    <section aria-labelledby="icon-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
      <h2 id="icon-heading" className="text-lg font-semibold">
        Server icon
      </h2>
      <p className="text-sm text-slate-600">
        Any PNG, JPEG, GIF or WebP picture up to {SERVER_ICON_UPLOAD_MAX_BYTES / 1024 / 1024} MiB: it is cut to a square and scaled to 64×64
        (a 64×64 PNG is kept as it is). Without one the list shows the default icon.
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
      <ShopIcons serverId={id} appearance={saved} canEdit={canEdit} onSaved={onSaved} />
    </section>
  );
}

/** Icons from the shop: in use, owned (Use), or to unlock in the shop. */
function ShopIcons({ serverId: id, appearance: saved, canEdit, onSaved }: IconProps) {
  async function chooseShopIcon(itemId: string, name: string) {
    onSaved(await call(endpoints.appearanceShopIcon, { params: { serverId: id }, body: { itemId } }));
    notify('success', `${name} icon chosen`, 'It shows in the server list after the next start.');
  }

  if (!saved.shopIcons.length) return null;
  return (
    <div className="mt-4">
      <h3 className="text-sm font-semibold text-slate-800">Icons from the shop</h3>
      <ul className="mt-2 grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="shop-icons">
        {saved.shopIcons.map((entry) => {
          const item = shopItem(entry.itemId);
          return (
            <li key={entry.itemId} className="flex flex-col items-center gap-2 rounded-lg border border-slate-200 p-3 text-center text-sm">
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
  );
}
