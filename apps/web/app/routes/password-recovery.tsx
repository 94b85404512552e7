import { endpoints, passwordRecoveryForm, passwordResetForm } from '@spawnpoint/contracts';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { Field, FormError } from '../components/field.tsx';
import { call } from '../lib/api.ts';
import { useForm } from '../lib/form.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';

export const meta = () => pageMeta('password-recovery', 'Reset the password of your Spawnpoint account.');

export default function PasswordRecovery() {
  const [params] = useSearchParams();
  const token = params.get('token');
  return token ? <ResetForm token={token} /> : <RequestForm />;
}

function RequestForm() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useForm(passwordRecoveryForm);
  const submit = form.handleSubmit(async ({ emailAddress }) => {
    await call(endpoints.passwordRecovery, { body: { emailAddress } });
    setSentTo(emailAddress);
  });

  if (sentTo) {
    return (
      <div role="status">
        <h1 className="text-2xl font-bold">Check your inbox</h1>
        <p className="mt-3 text-sm text-slate-600">
          If an account exists for <strong>{sentTo}</strong>, we have sent it a link to choose a new password. The link works once and
          expires in one hour.
        </p>
        <Link to="/login" className="mt-6 inline-block text-sm font-medium text-brand-700 hover:underline">
          Back to sign in
        </Link>
      </div>
    );
  }
  return (
    <>
      <h1 className="text-2xl font-bold">Forgot your password?</h1>
      <p className="mt-1 text-sm text-slate-600">Enter your email address and we will send you a link to reset it.</p>
      <form className="mt-6 space-y-4" onSubmit={submit} noValidate>
        <Field label="Email address" type="email" autoComplete="email" error={form.errors.emailAddress} {...form.field('emailAddress')} />
        <Button type="submit" className="w-full" busy={form.submitting}>
          Send reset link
        </Button>
      </form>
      <p className="mt-6 text-center text-sm">
        <Link to="/login" className="font-medium text-brand-700 hover:underline">
          Back to sign in
        </Link>
      </p>
    </>
  );
}

function ResetForm({ token }: { token: string }) {
  const navigate = useNavigate();
  const form = useForm(passwordResetForm);
  const submit = form.handleSubmit(async ({ password }) => {
    await call(endpoints.passwordReset, { body: { token, password } });
    notify('success', 'Password changed', 'Sign in with your new password.');
    navigate('/login', { replace: true });
  });
  return (
    <>
      <h1 className="text-2xl font-bold">Choose a new password</h1>
      <p className="mt-1 text-sm text-slate-600">You will be signed out everywhere else.</p>
      <form className="mt-6 space-y-4" onSubmit={submit} noValidate>
        <FormError message={form.errors._ ?? (form.errors as Record<string, string | undefined>).token} />
        <Field label="New password" type="password" autoComplete="new-password" error={form.errors.password} {...form.field('password')} />
        <Field
          label="Confirm new password"
          type="password"
          autoComplete="new-password"
          error={form.errors.passwordConfirmation}
          {...form.field('passwordConfirmation')}
        />
        <Button type="submit" className="w-full" busy={form.submitting}>
          Change password
        </Button>
      </form>
      <p className="mt-6 text-center text-sm">
        <Link to="/password-recovery" className="font-medium text-brand-700 hover:underline">
          Request a new link
        </Link>
      </p>
    </>
  );
}
