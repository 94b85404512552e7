import { endpoints, loginForm } from '@spawnpoint/contracts';
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Button } from '../components/button.tsx';
import { Field } from '../components/field.tsx';
import { InviteBanner, useInvitePreview } from '../components/invite-banner.tsx';
import { RecoveryCodeForm, TokenInput } from '../components/token-input.tsx';
import { ApiFailure, call } from '../lib/api.ts';
import { handleApiError } from '../lib/api-errors.ts';
import { emptyToken } from '../lib/token-input.ts';
import { useForm } from '../lib/form.ts';
import { useSending } from '../lib/use-sending.ts';
import { pageMeta } from '../lib/meta.ts';
import { setSignedIn } from '../lib/user-store.ts';

export const meta = () => pageMeta('login', 'Sign in to your Spawnpoint dashboard to manage your Minecraft servers.');

export default function Login() {
  const location = useLocation();
  const invite = useInvitePreview();
  const form = useForm(loginForm);

  const [step, setStep] = useState<'password' | 'code'>('password');
  const [digits, setDigits] = useState(emptyToken);
  const [codeError, setCodeError] = useState<string | null>(null);
  const { sending: busy, send } = useSending();

  async function signIn(values: { emailAddress: string; password: string }, twoFactorToken?: string) {
    try {
      // The route guard moves a signed-in user on to ?redirect= or /servers.
      const user = await call(
        endpoints.login,
        { body: { ...values, ...(twoFactorToken ? { twoFactorToken } : {}) } },
        { background: true },
      );
      setSignedIn(user);
    } catch (error) {
      if (error instanceof ApiFailure && error.code === 'INVALID_TWOFACTOR') {
        // The password was right; the account asks for its second step.
        setStep('code');
        setDigits(emptyToken());
        setCodeError(twoFactorToken ? error.message : null);
        return;
      }
      if (error instanceof ApiFailure) handleApiError(error);
      throw error;
    }
  }

  const submit = form.handleSubmit((values) => signIn(values));

  // The six boxes submit themselves when full: one code at a time.
  const submitCode = (token: string) =>
    send(async () => {
      try {
        await signIn(form.values, token);
      } catch {
        // shown by the toast
      }
    });

  if (step === 'code')
    return <SecondStep digits={digits} onDigits={setDigits} error={codeError} busy={busy} onSubmit={(token) => void submitCode(token)} />;

  return (
    <>
      <h1 className="text-2xl font-bold">Sign in</h1>
      <p className="mt-1 text-sm text-slate-600">Welcome back. Your servers are waiting.</p>
      {invite ? <InviteBanner preview={invite} action="sign in" /> : null}
      <form className="mt-6 space-y-4" onSubmit={submit} noValidate>
        <Field label="Email address" type="email" autoComplete="email" error={form.errors.emailAddress} {...form.field('emailAddress')} />
        <Field label="Password" type="password" autoComplete="current-password" error={form.errors.password} {...form.field('password')} />
        <div className="flex justify-end text-sm">
          <Link to="/password-recovery" className="font-medium text-brand-700 hover:underline">
            Forgot your password?
          </Link>
        </div>
        <Button type="submit" className="w-full" busy={form.submitting}>
          Sign in
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-slate-600">
        New to Spawnpoint?{' '}
        <Link to={{ pathname: '/register', search: location.search }} className="font-medium text-brand-700 hover:underline">
          Create an account
        </Link>
      </p>
    </>
  );
}

/** The second step of a sign-in: the app's six digits, or a recovery code instead. */
function SecondStep({
  digits,
  onDigits,
  error,
  busy,
  onSubmit,
}: {
  digits: string[];
  onDigits: (digits: string[]) => void;
  error: string | null;
  busy: boolean;
  onSubmit: (token: string) => void;
}) {
  const [recovery, setRecovery] = useState<string | null>(null);
  return (
    <>
      <h1 className="text-2xl font-bold">Two-factor authentication</h1>
      <p className="mt-1 text-sm text-slate-600">
        {recovery === null ? 'Enter the six-digit code from your authenticator app.' : 'Enter one of your recovery codes.'}
      </p>
      <div className="mt-6 space-y-4">
        {recovery === null ? (
          <TokenInput digits={digits} onChange={onDigits} onComplete={onSubmit} disabled={busy} />
        ) : (
          <RecoveryCodeForm
            id="recovery-code"
            value={recovery}
            onChange={setRecovery}
            onSubmit={onSubmit}
            busy={busy}
            submitLabel="Sign in"
          />
        )}
        {error ? (
          <p role="alert" className="text-center text-sm text-red-600">
            {error}
          </p>
        ) : null}
        <button
          type="button"
          className="text-sm font-medium text-brand-700 hover:underline"
          onClick={() => setRecovery(recovery === null ? '' : null)}
        >
          {recovery === null ? 'Use a recovery code instead' : 'Use the app code instead'}
        </button>
      </div>
    </>
  );
}
