import { endpoints, registerForm } from '@spawnpoint/contracts';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { Button } from '../components/button.tsx';
import { Field } from '../components/field.tsx';
import { InviteBanner, useInvitePreview } from '../components/invite-banner.tsx';
import { call } from '../lib/api.ts';
import { useForm } from '../lib/form.ts';
import { pageMeta } from '../lib/meta.ts';
import { afterSignInPath } from '../lib/navigation.ts';
import { storedReferral } from '../lib/query-params.ts';
import { notify } from '../lib/toasts.ts';
import { setSignedIn } from '../lib/user-store.ts';

export const meta = () => pageMeta('register', 'Create a free Spawnpoint account and start your own Minecraft server in seconds.');

export default function Register() {
  const form = useForm(registerForm);

  // Opened from an invitation: who invited whom, and its address in the form (the account must have it).
  const invite = useInvitePreview();
  const emailField = form.field('emailAddress');
  useEffect(() => {
    if (invite && !form.values.emailAddress) emailField.onChange({ target: { value: invite.emailAddress } });
    // Once, when the preview arrives.
  }, [invite]);

  const submit = form.handleSubmit(async ({ emailAddress, password }) => {
    const referral = storedReferral();
    const user = await call(endpoints.register, { body: { emailAddress, password, ...(referral ? { referral } : {}) } });
    // The servers page, where a new account lands, says it in its own notice (a toast there covered its
    // Create server button); a page asked for with ?redirect= may not, so the toast tells it there.
    if (afterSignInPath(window.location.search) !== '/servers')
      notify('info', 'Check your inbox', `We sent a verification link to ${user.emailAddress}.`);
    setSignedIn(user);
  });

  return (
    <>
      <h1 className="text-2xl font-bold">Create your account</h1>
      <p className="mt-1 text-sm text-slate-600">Free forever for small servers. No card needed.</p>
      {invite ? <InviteBanner preview={invite} action="create an account" /> : null}
      <form className="mt-6 space-y-4" onSubmit={submit} noValidate>
        <Field label="Email address" type="email" autoComplete="email" error={form.errors.emailAddress} {...form.field('emailAddress')} />
        <Field label="Password" type="password" autoComplete="new-password" error={form.errors.password} {...form.field('password')} />
        <Field
          label="Confirm password"
          type="password"
          autoComplete="new-password"
          error={form.errors.passwordConfirmation}
          {...form.field('passwordConfirmation')}
        />
        <p className="text-xs text-slate-500">
          By creating an account you agree to the{' '}
          <Link to="/terms-of-service" className="underline">
            terms of service
          </Link>{' '}
          and the{' '}
          <Link to="/privacy-policy" className="underline">
            privacy policy
          </Link>
          .
        </p>
        <Button type="submit" className="w-full" busy={form.submitting}>
          Create account
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-slate-600">
        Already have an account?{' '}
        <Link to="/login" className="font-medium text-brand-700 hover:underline">
          Sign in
        </Link>
      </p>
    </>
  );
}
