import { Link } from 'react-router';
import { endpoints, formatPrice } from '@spawnpoint/contracts';
import { buttonClass } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { EndpointView } from '../components/endpoint-view.tsx';
import { pageMeta } from '../lib/meta.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useUser } from '../lib/user-store.ts';

export const meta = () =>
  pageMeta('affiliate', 'Earn a commission when players you invite buy a Spawnpoint plan. Read the terms and get your referral link.');

export default function Affiliate() {
  const signedIn = useUser((s) => s.userData !== null);
  const referral = useEndpoint(
    endpoints.referral,
    {},
    { enabled: signedIn, failureMessage: 'Your link could not be loaded. Please reload the page.' },
  );

  return (
    <main className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">Affiliate programme</h1>
      <p className="mt-3 text-lg text-slate-600">
        Tell your audience about Spawnpoint and earn part of what they spend: a share of every purchase made by the players who sign up
        through your link is credited to your balance.
      </p>

      <section className="mt-8 rounded-xl border border-slate-200 bg-white p-6" aria-labelledby="link-heading">
        <h2 id="link-heading" className="text-lg font-semibold">
          Your referral link
        </h2>
        {!signedIn ? (
          <p className="mt-2 text-slate-600">
            <Link to="/login?redirect=%2Faffiliate" className="font-semibold text-brand-700 underline">
              Sign in
            </Link>{' '}
            or{' '}
            <Link to="/register" className="font-semibold text-brand-700 underline">
              create an account
            </Link>{' '}
            to get your link.
          </p>
        ) : (
          <EndpointView load={referral.load} loading="Loading…" className="mt-2">
            {(info) => (
              <div className="mt-3 space-y-2">
                <CopyButton value={info.link} label="Referral link" />
                <p className="text-sm text-slate-600">
                  Your code: <strong className="font-mono">{info.code}</strong>. Any Spawnpoint page works with <code>?r={info.code}</code>{' '}
                  added.
                </p>
                <p className="text-sm font-medium" data-testid="referred-users">
                  {info.referredUsers === 0
                    ? 'Nobody has signed up with your link yet: share it where your players are.'
                    : info.referredUsers === 1
                      ? '1 player has signed up with your link.'
                      : `${info.referredUsers} players have signed up with your link.`}
                </p>
                <p className="text-sm" data-testid="affiliate-earned">
                  You earn <strong>{info.commissionPercent}%</strong> of their purchases. Earned so far:{' '}
                  <strong>{formatPrice(info.earnedCents)}</strong>, in{' '}
                  <Link to="/account/billing" className="font-semibold text-brand-700 underline">
                    your balance
                  </Link>
                  .
                </p>
                {info.commissions.length ? (
                  <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 text-sm" aria-label="Recent commissions">
                    {info.commissions.map((c) => (
                      <li key={c.id} className="flex flex-wrap justify-between gap-2 px-3 py-2">
                        <span>{new Date(c.createdAt).toLocaleString()}</span>
                        <span className="font-semibold text-emerald-700">+{formatPrice(c.amountCents)}</span>
                      </li>
                    ))}
                  </ul>
                ) : null}
              </div>
            )}
          </EndpointView>
        )}
      </section>

      <section className="mt-10 space-y-4 text-slate-700" aria-labelledby="terms-heading">
        <h2 id="terms-heading" className="text-2xl font-bold text-slate-900">
          How it works
        </h2>
        <ol className="list-decimal space-y-2 pl-6">
          <li>Share your link. When someone opens it, we remember your code in their browser until they sign up.</li>
          <li>They create an account. Your code is attached to it for good; it cannot be changed later.</li>
          <li>
            You earn a share of everything they buy from their balance — plans, renewals and shop items — credited to your Spawnpoint
            balance the moment they pay (signed in, the panel above shows your rate and what you earned).
          </li>
        </ol>
        <h3 className="text-xl font-semibold text-slate-900">Terms</h3>
        <ul className="list-disc space-y-2 pl-6">
          <li>Commissions are balance credit: they pay for your own plans and shop items; they are not paid out in cash.</li>
          <li>
            Referring yourself, buying ads on our brand name, spam and misleading claims (such as “free forever premium”) are not allowed
            and end participation.
          </li>
        </ul>
        {!signedIn ? (
          <Link to="/register" className={buttonClass('primary')}>
            Join for free
          </Link>
        ) : null}
      </section>
    </main>
  );
}
