import { endpoints, formatPrice, shopItem, type ShopItemView } from '@spawnpoint/contracts';
import { Link, useNavigate, useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { ShopIconArtwork } from '../components/pixel-art.tsx';
import { EndpointView } from '../components/endpoint-view.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { call } from '../lib/api.ts';
import { confirmPurchase, newIdempotencyKey } from '../lib/billing.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-shop', 'Server icons, extra backup slots and more disk for your Minecraft server.');

const card = 'rounded-xl border border-slate-200 bg-white p-4 sm:p-6';

export default function ServerShopPage() {
  const { id = '' } = useParams();
  return <ShopPage key={id} id={id} />;
}

function ShopPage({ id }: { id: string }) {
  const load = useServer(id);
  const mayBuy = load.status === 'ready' && load.server.permissions.includes('billing.manage');
  const shop = useEndpoint(
    endpoints.shop,
    { params: { serverId: id } },
    { enabled: mayBuy, failureMessage: 'The shop could not be loaded. Please reload the page.' },
  );
  const navigate = useNavigate();

  const buy = (item: ShopItemView) =>
    confirmPurchase(
      {
        chargeCents: item.priceCents,
        title: `Buy ${item.name}?`,
        message: `${formatPrice(item.priceCents)} is taken from your balance${item.scope === 'account' ? '; the icon is yours for all your servers.' : ' and added to this server for good.'}`,
        confirmLabel: `Pay ${formatPrice(item.priceCents)}`,
        onConfirm: async () => {
          // One key per confirmed purchase: a retried request charges once.
          shop.set(
            await call(endpoints.shopBuy, { params: { serverId: id }, body: { itemId: item.id, idempotencyKey: newIdempotencyKey() } }),
          );
          notify('success', `${item.name} bought`, item.kind === 'icon' ? 'Choose it on the Appearance page.' : 'It applies at once.');
        },
      },
      async () => (await shop.reload())?.balanceCents ?? null,
      () => void navigate('/account/billing'),
    );

  const groups: { title: string; kinds: ShopItemView['kind'][] }[] = [
    { title: 'Server icons', kinds: ['icon'] },
    { title: 'More for this server', kinds: ['backup-slot', 'disk'] },
  ];
  return (
    <ServerShell serverId={id} load={load}>
      <div className="grid gap-6">
        {load.status === 'ready' && !mayBuy ? (
          <p className={`${card} text-sm text-slate-600`}>Only the server&apos;s owner can buy in its shop.</p>
        ) : (
          <EndpointView load={shop.load} loading="Loading the shop…" className={card}>
            {(data) => (
              <>
                <section className={`${card} flex flex-wrap items-center justify-between gap-3 text-sm`} aria-label="Balance and limits">
                  <span>
                    Balance: <strong data-testid="shop-balance">{formatPrice(data.balanceCents)}</strong>{' '}
                    <Link to="/account/billing" className="ml-2 font-medium text-brand-700 underline">
                      Top up
                    </Link>
                  </span>
                  <span className="text-slate-600">
                    This server keeps <strong>{data.backupLimit}</strong> backups and has <strong>{data.diskMb / 1024} GB</strong> of disk.
                  </span>
                </section>
                {groups.map((group) => (
                  <section key={group.title} aria-label={group.title} className={card}>
                    <h2 className="text-lg font-semibold">{group.title}</h2>
                    <ul className="mt-3 grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
                      {data.items
                        .filter((item) => group.kinds.includes(item.kind))
                        .map((item) => (
                          <ShopItemCard key={item.id} item={item} serverId={id} onBuy={() => buy(item)} />
                        ))}
                    </ul>
                  </section>
                ))}
              </>
            )}
          </EndpointView>
        )}
      </div>
    </ServerShell>
  );
}

/** One thing for sale: its art, what it is, how many are bought, and Buy (or why not). */
function ShopItemCard({ item, serverId, onBuy }: { item: ShopItemView; serverId: string; onBuy: () => void }) {
  const art = shopItem(item.id);
  const full = item.owned >= item.max;
  return (
    <li className="flex flex-col gap-2 rounded-lg border border-slate-200 p-3 text-sm" data-testid="shop-item">
      {art?.kind === 'icon' ? <ShopIconArtwork art={art.art} size={56} label={item.name} /> : null}
      <h3 className="font-semibold">{item.name}</h3>
      <p className="flex-1 text-slate-600">{item.summary}</p>
      {item.kind !== 'icon' && item.owned > 0 ? (
        <p className="text-xs text-slate-500">
          {item.owned} of {item.max} bought for this server
        </p>
      ) : null}
      {item.kind === 'icon' && item.owned ? (
        <Link to={`/servers/${serverId}/appearance`} className="font-medium text-emerald-700 underline">
          Owned — choose it in Appearance
        </Link>
      ) : full ? (
        <p className="font-medium text-slate-500">The most this server can have</p>
      ) : (
        <Button onClick={onBuy} aria-label={`Buy for ${formatPrice(item.priceCents)} (${item.name})`}>
          Buy for {formatPrice(item.priceCents)}
        </Button>
      )}
    </li>
  );
}
