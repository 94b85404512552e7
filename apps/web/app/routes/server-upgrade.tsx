import { endpoints, formatMinutes, formatPrice, planById, plans, type OfferedPlan, type ServerPlanResult } from '@spawnpoint/contracts';
import { Link, useNavigate, useParams } from 'react-router';
import { Button, buttonClass } from '../components/button.tsx';
import { EndpointView } from '../components/endpoint-view.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { call } from '../lib/api.ts';
import { confirmPurchase, newIdempotencyKey } from '../lib/billing.ts';
import { openDialog } from '../lib/dialogs.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-upgrade', 'Compare plans and upgrade your Minecraft server from your balance.');

const card = 'rounded-xl border border-slate-200 bg-white p-4 sm:p-6';
const gb = (mb: number) => `${mb / 1024} GB`;
const day = (iso: string) => new Date(iso).toLocaleDateString('en-US', { dateStyle: 'long' });

export default function ServerUpgradePage() {
  const { id = '' } = useParams();
  return <UpgradePage key={id} id={id} />;
}

function UpgradePage({ id }: { id: string }) {
  const load = useServer(id);
  const mayBuy = load.status === 'ready' && load.server.permissions.includes('billing.manage');
  const offer = useEndpoint(
    endpoints.serverPlan,
    { params: { serverId: id } },
    { enabled: mayBuy, failureMessage: 'The plans could not be loaded. Please reload the page.' },
  );
  const navigate = useNavigate();

  const choose = (plan: OfferedPlan, chargeCents: number, kind: string): Promise<void> | undefined => {
    const confirm = {
      title: kind === 'downgrade' ? `Switch to ${plan.name} at renewal?` : `Buy ${plan.name} for this server?`,
      message:
        kind === 'downgrade'
          ? `Your current plan runs to the end of its period; from then on the server is on ${plan.name} at ${formatPrice(plan.monthlyPriceCents)} a month. Nothing is charged now.`
          : kind === 'upgrade'
            ? `${formatPrice(chargeCents)} is taken from your balance now for the rest of this period; then ${formatPrice(plan.monthlyPriceCents)} a month.`
            : `${formatPrice(chargeCents)} is taken from your balance now for one month; it renews from your balance until you turn renewal off.`,
      confirmLabel: kind === 'downgrade' ? 'Switch at renewal' : `Pay ${formatPrice(chargeCents)}`,
      onConfirm: async () => {
        // One key per confirmed choice: a retried request charges once.
        const result = await call(endpoints.serverPlanChoose, {
          params: { serverId: id },
          body: { planId: plan.id, idempotencyKey: newIdempotencyKey() },
        });
        offer.set(result);
        notify(
          'success',
          kind === 'downgrade' ? `${plan.name} from the next period` : `${plan.name} is active`,
          kind === 'downgrade' ? undefined : 'Slots and memory apply at the next start of the server.',
        );
      },
    };
    // A switch at renewal charges nothing now; a purchase first checks what would refuse it.
    if (kind === 'downgrade') openDialog('confirm', confirm);
    else
      return confirmPurchase(
        { ...confirm, chargeCents },
        async () => (await offer.reload())?.balanceCents ?? null,
        () => void navigate('/account/billing'),
      );
  };

  const setRenewal = async (renews: boolean) => {
    offer.set(await call(endpoints.serverPlanRenewal, { params: { serverId: id }, body: { renews } }));
    notify(
      'success',
      renews ? 'Renewal turned on' : 'Renewal turned off',
      renews ? undefined : 'The plan runs to the end of its period, then the server is on Free.',
    );
  };

  return (
    <ServerShell serverId={id} load={load}>
      <div className="grid gap-6">
        {load.status === 'ready' && !mayBuy ? (
          <p className={`${card} text-sm text-slate-600`}>Only the server&apos;s owner can change its plan.</p>
        ) : (
          <EndpointView load={offer.load} loading="Loading plans…" className={card}>
            {(data) => <PlanChoices data={data} choose={choose} setRenewal={setRenewal} />}
          </EndpointView>
        )}
        {mayBuy ? null : (
          <Link to={`/servers/${id}`} className={buttonClass('secondary', 'justify-self-start')}>
            Back to the server
          </Link>
        )}
      </div>
    </ServerShell>
  );
}

/** The current plan, the renewal switch and the plans to choose from, once the offer is loaded. */
function PlanChoices({
  data,
  choose,
  setRenewal,
}: {
  data: ServerPlanResult;
  choose: (plan: OfferedPlan, chargeCents: number, kind: string) => Promise<void> | undefined;
  setRenewal: (renews: boolean) => Promise<void>;
}) {
  const current = planById(data.planId) ?? plans[0];
  const sub = data.subscription ?? null;
  return (
    <>
      <section aria-labelledby="current-plan-heading" className={card} data-testid="current-plan">
        <h2 id="current-plan-heading" className="text-lg font-semibold">
          {current.name} plan
        </h2>
        {sub ? (
          <p className="mt-1 text-sm text-slate-700">
            {sub.renews
              ? `Renews on ${day(sub.periodEnd)} for ${formatPrice((planById(sub.nextPlanId ?? sub.planId) ?? current).monthlyPriceCents)} from your balance${sub.nextPlanId ? `, as ${planById(sub.nextPlanId)?.name}` : ''}.`
              : `Ends on ${day(sub.periodEnd)}; the server is on Free from then on, with its files kept.`}
          </p>
        ) : (
          <p className="mt-1 text-sm text-slate-700">Free forever. A paid plan gives this server more slots, memory, disk and backups.</p>
        )}
        <div className="mt-3 flex flex-wrap items-center gap-3 text-sm">
          <span>
            Balance: <strong data-testid="plan-balance">{formatPrice(data.balanceCents)}</strong>
          </span>
          <Link to="/account/billing" className="font-medium text-brand-700 underline">
            Top up
          </Link>
          {sub ? (
            <Button variant="secondary" onClick={() => setRenewal(!sub.renews)}>
              {sub.renews ? 'Turn renewal off' : 'Turn renewal on'}
            </Button>
          ) : null}
        </div>
      </section>

      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading" className="sr-only">
          Plans
        </h2>
        <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
          {data.plans.map((plan) => (
            <PlanCard
              key={plan.id}
              plan={plan}
              quote={data.quotes.find((q) => q.planId === plan.id)}
              current={plan.id === current.id}
              sub={sub}
              choose={choose}
              setRenewal={setRenewal}
            />
          ))}
        </ul>
        <p className="mt-3 text-xs text-slate-500">
          An upgrade during a period costs the difference for the days left; a cheaper plan starts with the next period. Plans renew from
          your balance:{' '}
          <Link to="/account/billing" className="underline">
            top up
          </Link>{' '}
          before the renewal date, or the server goes back to Free with its files kept.
        </p>
      </section>
    </>
  );
}

/** One plan: what it gives, and what choosing it does (buy, upgrade, switch at renewal, or nothing). */
function PlanCard({
  plan,
  quote,
  current,
  sub,
  choose,
  setRenewal,
}: {
  plan: OfferedPlan;
  quote: ServerPlanResult['quotes'][number] | undefined;
  current: boolean;
  sub: ServerPlanResult['subscription'];
  choose: (plan: OfferedPlan, chargeCents: number, kind: string) => Promise<void> | undefined;
  setRenewal: (renews: boolean) => Promise<void>;
}) {
  return (
    <li
      data-testid="plan-card"
      className={`flex flex-col rounded-xl border bg-white p-4 text-sm ${current ? 'border-brand-600 ring-2 ring-brand-600' : 'border-slate-200'}`}
    >
      <h3 className="text-base font-bold">{plan.name}</h3>
      <p className="mt-1">
        <span className="text-2xl font-extrabold">{formatPrice(plan.monthlyPriceCents)}</span>
        <span className="text-slate-500"> / month</span>
      </p>
      <ul className="mt-3 flex-1 space-y-1 text-slate-700">
        <li>{plan.playerSlots} player slots</li>
        <li>
          {gb(plan.memoryMb)} memory, {gb(plan.diskMb)} disk
        </li>
        <li>{plan.backups} backups kept</li>
        <li>
          {plan.dailyPlayTimeMinutes === null
            ? 'No daily play-time limit'
            : `${plan.dailyPlayTimeMinutes >= 60 ? `${Math.round((plan.dailyPlayTimeMinutes / 60) * 10) / 10} h` : formatMinutes(plan.dailyPlayTimeMinutes)} of play time a day`}
        </li>
        <li>{plan.activeServers} of your servers running at a time</li>
        <li>{plan.sleeping}</li>
      </ul>
      <div className="mt-4">
        {!quote || quote.kind === 'current' ? (
          <p className="font-semibold text-brand-700">Your plan</p>
        ) : quote.kind === 'free' ? (
          sub?.renews ? (
            <Button variant="secondary" className="w-full" onClick={() => setRenewal(false)}>
              Back to Free at renewal
            </Button>
          ) : (
            <p className="text-slate-500">{sub ? `From ${day(sub.periodEnd)}` : ''}</p>
          )
        ) : quote.kind === 'downgrade' ? (
          sub?.nextPlanId === plan.id ? (
            <p className="text-slate-600">From {day(sub.periodEnd)}</p>
          ) : (
            <Button variant="secondary" className="w-full" onClick={() => choose(plan, 0, 'downgrade')}>
              Switch at renewal
            </Button>
          )
        ) : (
          <Button
            className="w-full"
            onClick={() => choose(plan, quote.chargeCents, quote.kind)}
            // The visible words first (what a voice user says), then which plan.
            aria-label={`${quote.kind === 'upgrade' ? 'Upgrade' : 'Buy'} for ${formatPrice(quote.chargeCents)} (${plan.name})`}
          >
            {quote.kind === 'upgrade' ? 'Upgrade' : 'Buy'} for {formatPrice(quote.chargeCents)}
          </Button>
        )}
      </div>
    </li>
  );
}
