import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { endpoints, type GiveawayState } from '@spawnpoint/contracts';
import { Button } from '../components/button.tsx';
import { call } from '../lib/api.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { useEndpoint, type EndpointLoad } from '../lib/use-endpoint.ts';
import { useUser } from '../lib/user-store.ts';

export const meta = () =>
  pageMeta(
    'giveaway-10-minecraft-accounts',
    'Win one of 10 Minecraft Java Edition accounts. One entry per verified Spawnpoint account; winners drawn fairly after the deadline.',
  );

const SLUG = '10-minecraft-accounts';

export default function Giveaway() {
  const signedIn = useUser((s) => s.userData !== null);
  const giveaway = useEndpoint(
    endpoints.giveaway,
    { params: { slug: SLUG } },
    { failureMessage: 'The giveaway could not be loaded. Please reload the page.' },
  );
  // Signing in or out changes whether "you are in" applies: asked again.
  const seenSignedIn = useRef(signedIn);
  const { reload } = giveaway;
  useEffect(() => {
    if (signedIn !== seenSignedIn.current) void reload();
    seenSignedIn.current = signedIn;
  }, [signedIn, reload]);
  const data = giveaway.load.status === 'ready' ? giveaway.load.data : null;
  const deadline = data ? new Date(data.deadline) : null;

  return (
    <main className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">Giveaway: 10 Minecraft accounts</h1>
      <p className="mt-3 text-lg text-slate-600">
        We are giving away ten Minecraft: Java Edition accounts to players who host with us. Enter once with your verified Spawnpoint
        account.
      </p>

      <section className="mt-8 grid gap-4 rounded-xl border border-slate-200 bg-white p-6 sm:grid-cols-2" aria-live="polite">
        <div>
          <p className="text-sm text-slate-500">Entries so far</p>
          <p className="text-3xl font-bold tabular-nums" data-testid="giveaway-entries">
            {data ? data.entries : '—'}
          </p>
        </div>
        <div>
          <p className="text-sm text-slate-500">Closes</p>
          <p className="text-lg font-semibold">
            {deadline ? deadline.toLocaleString('en-US', { dateStyle: 'long', timeStyle: 'short' }) : '—'}
          </p>
        </div>
        <div className="sm:col-span-2">
          <GiveawayAction load={giveaway.load} signedIn={signedIn} refresh={reload} />
        </div>
      </section>

      <section className="mt-10 space-y-3 text-slate-700">
        <h2 className="text-2xl font-bold text-slate-900">Rules</h2>
        <ul className="list-disc space-y-2 pl-6">
          <li>One entry per person and per verified Spawnpoint account. No purchase needed.</li>
          <li>
            Ten winners are drawn at random after the deadline. The draw orders all entries by a SHA-256 hash of a published seed and the
            entry, so it can be checked.
          </li>
          <li>Winners get a gift code for Minecraft: Java Edition by email and have 30 days to claim it.</li>
          <li>
            Spawnpoint staff cannot enter. Minecraft is a trademark of Mojang; this giveaway is not affiliated with Mojang or Microsoft.
          </li>
        </ul>
      </section>
    </main>
  );
}

/** The winners once drawn, or whether (and how) the visitor can still enter. */
function GiveawayAction({
  load,
  signedIn,
  refresh,
}: {
  load: EndpointLoad<GiveawayState>;
  signedIn: boolean;
  refresh: () => Promise<unknown>;
}) {
  const verified = useUser((s) => s.userData?.emailVerified ?? false);
  if (load.status === 'failed')
    return (
      <p className="text-sm text-red-700" role="alert">
        {load.message}
      </p>
    );
  if (load.status !== 'ready') return null;
  const data = load.data;
  const open = !data.drawn && new Date(data.deadline).getTime() > Date.now();
  return data.drawn ? (
    <div>
      <h2 className="font-semibold">Winners</h2>
      <ul className="mt-2 grid gap-1 font-mono text-sm sm:grid-cols-2">
        {data.winners.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
      <p className="mt-2 text-xs text-slate-500">Drawn with the seed {data.seed}: anyone can check the draw.</p>
    </div>
  ) : data.entered ? (
    <p className="font-semibold text-brand-700">You are in. Good luck! Winners are emailed and listed here after the deadline.</p>
  ) : !open ? (
    <p>This giveaway has closed. Winners will be listed here soon.</p>
  ) : !signedIn ? (
    <p>
      <Link to="/login?redirect=%2Fgiveaway%2F10-minecraft-accounts" className="font-semibold text-brand-700 underline">
        Sign in
      </Link>{' '}
      or{' '}
      <Link to="/register" className="font-semibold text-brand-700 underline">
        create a free account
      </Link>{' '}
      to enter.
    </p>
  ) : (
    <div className="space-y-2">
      {!verified ? <p className="text-sm text-amber-800">Verify your email address first (check your inbox).</p> : null}
      <Button
        onClick={async () => {
          try {
            await call(endpoints.giveawayEnter, { params: { slug: SLUG } });
            notify('success', 'You are in!', 'Good luck.');
          } catch {
            // the toast explains (already entered, verify first, closed)
          } finally {
            void refresh();
          }
        }}
      >
        Enter the giveaway
      </Button>
    </div>
  );
}
