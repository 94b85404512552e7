import { formatPrice, plans } from '@spawnpoint/contracts';
import { Link } from 'react-router';
import { buttonClass } from '../components/button.tsx';
import { useCurrency } from '../lib/localization.ts';
import { pageMeta } from '../lib/meta.ts';

/** Prerendered HTML with the small site script instead of the app (root.tsx). */
export const handle = { staticPage: true };

export const meta = () =>
  pageMeta(
    'pricing',
    'Spawnpoint plans: a free Minecraft server for friends, and paid plans with more players, memory, backups and longer awake time.',
  );

const gb = (mb: number) => `${mb / 1024} GB`;

export default function Pricing() {
  const currency = useCurrency();
  return (
    <main className="mx-auto max-w-6xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">Plans and prices</h1>
      <p className="mt-3 max-w-2xl text-lg text-slate-600">
        Start free today. Any server moves to a paid plan from its Upgrade tab, paid per server per month from your balance.
      </p>
      <ul className="mt-10 grid gap-6 md:grid-cols-2 lg:grid-cols-4">
        {plans.map((plan) => (
          <li
            key={plan.id}
            className={`flex flex-col rounded-2xl border bg-white p-6 ${plan.id === 'starter' ? 'border-brand-600 ring-2 ring-brand-600' : 'border-slate-200'}`}
          >
            <h2 className="text-xl font-bold">{plan.name}</h2>
            <p className="mt-1 text-sm text-slate-600">{plan.tagline}</p>
            <p className="mt-6">
              <span className="text-4xl font-extrabold" data-testid={`price-${plan.id}`} data-price-cents={plan.monthlyPriceCents}>
                {formatPrice(plan.monthlyPriceCents, currency)}
              </span>
              <span className="text-slate-500"> / month</span>
            </p>
            <ul className="mt-6 flex-1 space-y-2 text-sm text-slate-700">
              <li>
                <strong>{plan.playerSlots}</strong> player slots
              </li>
              <li>
                <strong>{gb(plan.memoryMb)}</strong> memory, <strong>{gb(plan.diskMb)}</strong> disk
              </li>
              <li>
                <strong>{plan.backups}</strong> backups kept
              </li>
              <li>
                Up to <strong>{plan.servers}</strong> servers, <strong>{plan.activeServers}</strong> running at a time
              </li>
              {plan.dailyPlayTimeMinutes !== null ? (
                <li>
                  <strong>{plan.dailyPlayTimeMinutes / 60} h</strong> of play time a day
                </li>
              ) : null}
              <li>{plan.sleeping}</li>
            </ul>
            {plan.monthlyPriceCents === 0 ? (
              <Link to="/register" className={buttonClass('primary', 'mt-6')}>
                Start free
              </Link>
            ) : (
              // Bought for a server on its Upgrade tab, so it starts with an account and a server.
              <Link to="/register" className={buttonClass('secondary', 'mt-6')}>
                Start free, then upgrade
              </Link>
            )}
          </li>
        ))}
      </ul>
      <section className="mt-16 grid gap-8 md:grid-cols-2" aria-labelledby="faq-heading">
        <h2 id="faq-heading" className="text-2xl font-bold md:col-span-2">
          Questions
        </h2>
        <div>
          <h3 className="font-semibold">What does “sleeps” mean?</h3>
          <p className="mt-1 text-slate-600">
            When nobody is online, the server saves and stops so it costs nothing, and the next player who joins it by its name wakes it up
            in a few seconds, on the same connection. A sleeping server keeps its world, files and backups.
          </p>
        </div>
        <div>
          <h3 className="font-semibold">Can I change plans later?</h3>
          <p className="mt-1 text-slate-600">
            Yes, on each server’s Upgrade page. An upgrade applies at once and costs only the difference for the days left of the month; a
            cheaper plan starts with the next month. Your world, files and backups stay as they are.
          </p>
        </div>
        <div>
          <h3 className="font-semibold">Which versions are supported?</h3>
          <p className="mt-1 text-slate-600">
            Minecraft Java Edition from 1.8.8 to 1.21.4 on the built-in server, and every release Paper, Purpur, Vanilla and Fabric publish
            (this year's 26.x included), with the Java each needs.
          </p>
        </div>
        <div>
          <h3 className="font-semibold">Is there a contract?</h3>
          <p className="mt-1 text-slate-600">
            No. Plans are paid from your balance and renew monthly from it; turn renewal off at any time and the server goes back to Free at
            the end of the month, with its files kept.
          </p>
        </div>
      </section>
    </main>
  );
}
