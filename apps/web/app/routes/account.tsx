import { endpoints, changeEmailForm, formatPrice } from '@spawnpoint/contracts';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button, buttonClass } from '../components/button.tsx';
import { Field } from '../components/field.tsx';
import { confirmEmailChange, deleteAccount, requestEmailChange } from '../lib/account.ts';
import { call } from '../lib/api.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { openDialog } from '../lib/dialogs.ts';
import { useForm } from '../lib/form.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { fetchUser, logout, signedOutOnPurpose, useUser } from '../lib/user-store.ts';

export const meta = () => pageMeta('account', 'Your Spawnpoint account.');

export default function Account() {
  const user = useUser((s) => s.userData);
  const [params, setParams] = useSearchParams();
  const confirming = useRef(false);

  // The link mailed to a new address lands here as ?email_token=.
  useEffect(() => {
    const token = params.get('email_token');
    if (!token || confirming.current) return;
    confirming.current = true;
    setParams({}, { replace: true });
    confirmEmailChange(token).then(
      async () => {
        notify('success', 'Email address changed', 'Your account now uses the new address.');
        await fetchUser();
      },
      () => undefined,
    );
  }, [params, setParams]);

  if (!user) return null;

  async function resend() {
    await call(endpoints.resendVerification, {});
    notify('success', 'Verification email sent', `Open the link we sent to ${user?.emailAddress}.`);
  }

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold">Account</h1>
      <BalanceCard />
      <section aria-labelledby="email-heading" className="rounded-xl border border-slate-200 bg-white p-6">
        <h2 id="email-heading" className="text-lg font-semibold">
          Email address
        </h2>
        <p className="mt-2 break-all font-medium" data-testid="account-email">
          {user.emailAddress}
        </p>
        {user.emailVerified ? (
          <p className="mt-2 inline-flex items-center gap-2 rounded-full bg-brand-50 px-3 py-1 text-sm font-medium text-brand-700">
            Verified
          </p>
        ) : (
          <div className="mt-3 rounded-lg bg-amber-50 p-4 text-sm text-amber-900">
            <p className="font-semibold">Not verified yet</p>
            <p className="mt-1">Open the link we emailed you to verify your address. You need a verified address to create servers.</p>
            <Button variant="secondary" className="mt-3" onClick={resend}>
              Resend verification email
            </Button>
          </div>
        )}
      </section>
      <ChangeEmail />
      <section aria-labelledby="session-heading" className="rounded-xl border border-slate-200 bg-white p-6">
        <h2 id="session-heading" className="text-lg font-semibold">
          Session
        </h2>
        <p className="mt-2 text-sm text-slate-600">
          Member since {new Date(user.createdAt).toLocaleDateString('en-US', { dateStyle: 'long' })}.
        </p>
        <Button variant="secondary" className="mt-4" onClick={logout}>
          Sign out
        </Button>
      </section>
      <DeleteAccount />
    </div>
  );
}

/** The balance at a glance; top-ups, billing information and receipts live on the Billing tab. */
function BalanceCard() {
  const transactions = useEndpoint(endpoints.transactions, { query: { page: 1 } });
  return (
    <section
      aria-labelledby="balance-heading"
      className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-slate-200 bg-white p-6"
    >
      <div>
        <h2 id="balance-heading" className="text-lg font-semibold">
          Balance
        </h2>
        <p className="mt-1 text-2xl font-bold" data-testid="account-balance">
          {transactions.load.status === 'ready' ? formatPrice(transactions.load.data.balanceCents) : '…'}
        </p>
        {transactions.load.status === 'failed' ? (
          <p className="text-sm text-red-700" role="alert">
            {transactions.load.message}
          </p>
        ) : null}
      </div>
      <Link to="/account/billing" className={buttonClass('secondary')}>
        Top up and billing
      </Link>
    </section>
  );
}

/** A new address, confirmed from a link mailed to it; the current password is asked. */
function ChangeEmail() {
  const emailForm = useForm(changeEmailForm);
  const [emailSentTo, setEmailSentTo] = useState<string | null>(null);
  const submitEmail = emailForm.handleSubmit(async (values) => {
    await requestEmailChange(values);
    setEmailSentTo(values.newEmailAddress);
  });
  return (
    <section aria-labelledby="change-email-heading" className="rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="change-email-heading" className="text-lg font-semibold">
        Change email address
      </h2>
      {emailSentTo ? (
        <p className="mt-2 text-sm text-slate-600" role="status">
          We sent a confirmation link to <strong>{emailSentTo}</strong>. Your address changes when you open it.
        </p>
      ) : (
        <form className="mt-4 max-w-sm space-y-4" onSubmit={submitEmail} noValidate>
          <Field
            label="New email address"
            type="email"
            autoComplete="email"
            error={emailForm.errors.newEmailAddress}
            {...emailForm.field('newEmailAddress')}
          />
          <Field
            label="Current password"
            type="password"
            autoComplete="current-password"
            error={emailForm.errors.password}
            {...emailForm.field('password')}
          />
          <Button type="submit" variant="secondary" busy={emailForm.submitting}>
            Send confirmation link
          </Button>
        </form>
      )}
    </section>
  );
}

/** Deleting the account, every server it owns and their files, after the password. */
function DeleteAccount() {
  return (
    <section aria-labelledby="delete-heading" className="rounded-xl border border-red-200 bg-white p-6">
      <h2 id="delete-heading" className="text-lg font-semibold text-red-700">
        Delete account
      </h2>
      <p className="mt-1 text-sm text-slate-600">Your account, your servers and all their files are removed for good.</p>
      <Button
        variant="danger"
        className="mt-4"
        onClick={() =>
          openDialog('input', {
            title: 'Delete your account?',
            message:
              'This removes your account, every server you own and all their files. It cannot be undone. Enter your password to confirm.',
            label: 'Password',
            secret: true,
            onContinue: async (password) => {
              await deleteAccount(password);
              signedOutOnPurpose();
              notify('success', 'Account deleted', 'Thank you for playing with us.');
            },
          })
        }
      >
        Delete account
      </Button>
    </section>
  );
}
