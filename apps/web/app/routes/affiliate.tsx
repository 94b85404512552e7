import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { endpoints, type ReferralInfo } from '@spawnpoint/contracts';
import { buttonClass } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { call } from '../lib/api.ts';
import { pageMeta } from '../lib/meta.ts';
import { useUser } from '../lib/user-store.ts';

export const meta = () =>
  pageMeta('affiliate', 'Earn a commission when players you invite buy a Spawnpoint plan. Read the terms and get your referral link.');

export default function Affiliate() {
  const signedIn = useUser((s) => s.userData !== null);
  const [referral, setReferral] = useState<ReferralInfo | null>(null);
  useEffect(() => {
    if (signedIn) call(endpoints.referral, {}).then(setReferral, () => undefined);
  }, [signedIn]);

  return (
    <main className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">Affiliate programme</h1>
      <p className="mt-3 text-lg text-slate-600">
        Tell your audience about Spawnpoint and earn part of what they spend. Your referral link works today and records who signs up
        through it; commissions on their purchases are being built and will be credited to your balance.
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
        ) : referral ? (
          <div className="mt-3 space-y-2">
            <CopyButton value={referral.link} label="Referral link" />
            <p className="text-sm text-slate-600">
              Your code: <strong className="font-mono">{referral.code}</strong>. Any Spawnpoint page works with{' '}
              <code>?r={referral.code}</code> added.
            </p>
            <p className="text-sm font-medium" data-testid="referred-users">
              {referral.referredUsers === 1 ? '1 player has' : `${referral.referredUsers} players have`} signed up with your link.
            </p>
          </div>
        ) : (
          <p className="mt-2 text-slate-500" role="status">
            Loading…
          </p>
        )}
      </section>

      <section className="mt-10 space-y-4 text-slate-700" aria-labelledby="terms-heading">
        <h2 id="terms-heading" className="text-2xl font-bold text-slate-900">
          How it works
        </h2>
        <ol className="list-decimal space-y-2 pl-6">
          <li>Share your link. When someone opens it, we remember your code in their browser until they sign up.</li>
          <li>They create an account. Your code is attached to it for good; it cannot be changed later.</li>
          <li>You earn 20 % of every plan payment they make during their first 12 months.</li>
        </ol>
        <h3 className="text-xl font-semibold text-slate-900">Terms</h3>
        <ul className="list-disc space-y-2 pl-6">
          <li>Commissions are counted in your balance once the payment can no longer be refunded (14 days).</li>
          <li>Payouts need two-factor authentication on your account and a balance of at least $20.00.</li>
          <li>
            Referring yourself, buying ads on our brand name, spam and misleading claims (such as “free forever premium”) are not allowed
            and end participation.
          </li>
          <li>Commission accounting starts when billing opens; links shared now already count.</li>
        </ul>
        <Link to="/register" className={buttonClass('primary')}>
          Join for free
        </Link>
      </section>
    </main>
  );
}
