import { accountEventLabels, changePasswordForm, endpoints, type SessionInfoData } from '@spawnpoint/contracts';
import { useState } from 'react';
import { Button } from '../components/button.tsx';
import { EndpointView } from '../components/endpoint-view.tsx';
import { Field } from '../components/field.tsx';
import { RecoveryCodes } from '../components/twofactor-dialogs.tsx';
import { changePassword, regenerateRecoveryCodes, revokeOtherSessions, revokeSession } from '../lib/account.ts';
import { openDialog } from '../lib/dialogs.ts';
import { useForm } from '../lib/form.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { useEndpoint, type EndpointLoad } from '../lib/use-endpoint.ts';
import { useUser } from '../lib/user-store.ts';

export const meta = () => pageMeta('account-security', 'Two-factor authentication, sessions, password and account activity.');

type Activity = { type: keyof typeof accountEventLabels; ip: string | null; device: string; createdAt: string };
const when = (iso: string) => new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });

export default function AccountSecurity() {
  const twoFactorOn = useUser((s) => s.userData?.twoFactorEnabled ?? false);
  const sessions = useEndpoint(endpoints.sessions, {}, { failureMessage: 'Your sessions could not be loaded. Please reload the page.' });
  const activity = useEndpoint(
    endpoints.activity,
    {},
    { failureMessage: 'Your account activity could not be loaded. Please reload the page.' },
  );
  // After a change here (a session signed out, two-factor, the password), both say what it did.
  const refresh = () => {
    void sessions.reload();
    void activity.reload();
  };

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold">Security</h1>

      <TwoFactorSection twoFactorOn={twoFactorOn} onChanged={refresh} />

      <SessionsSection load={sessions.load} onChanged={refresh} />

      <PasswordSection onChanged={refresh} />

      <section aria-labelledby="activity-heading" className="rounded-xl border border-slate-200 bg-white p-6">
        <h2 id="activity-heading" className="text-lg font-semibold">
          Recent activity
        </h2>
        <EndpointView load={activity.load} loading="Loading…" className="mt-2">
          {(events) =>
            events.length === 0 ? <p className="mt-2 text-sm text-slate-600">Nothing yet.</p> : <ActivityList events={events} />
          }
        </EndpointView>
      </section>
    </div>
  );
}

function ActivityList({ events }: { events: Activity[] }) {
  return (
    <ul className="mt-3 divide-y divide-slate-100 text-sm" data-testid="activity-list">
      {events.map((event, i) => (
        <li key={`${event.createdAt}-${i}`} className="flex flex-wrap justify-between gap-2 py-2">
          <span className="font-medium">{accountEventLabels[event.type]}</span>
          <span className="min-w-0 text-slate-500 wrap-anywhere">
            {event.device} · {event.ip ?? 'unknown address'} · {when(event.createdAt)}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Two-factor authentication: on or off, and new recovery codes (shown once). */
function TwoFactorSection({ twoFactorOn, onChanged }: { twoFactorOn: boolean; onChanged: () => void }) {
  const [codes, setCodes] = useState<string[] | null>(null);
  return (
    <section aria-labelledby="tfa-heading" className="rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="tfa-heading" className="text-lg font-semibold">
        Two-factor authentication
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        {twoFactorOn
          ? 'On. Signing in asks for a code from your authenticator app.'
          : 'Off. Add a second step to signing in with an authenticator app.'}
      </p>
      <div className="mt-4 flex flex-wrap gap-2">
        {twoFactorOn ? (
          <>
            <Button variant="secondary" onClick={() => openDialog('disable-twofactor', { onDone: onChanged })}>
              Turn off
            </Button>
            <Button
              variant="secondary"
              onClick={() =>
                openDialog('input', {
                  title: 'New recovery codes',
                  message: 'Enter a code from your authenticator app. Your old recovery codes stop working.',
                  label: 'Code',
                  onContinue: async (token) => {
                    setCodes((await regenerateRecoveryCodes(token)).recoveryCodes);
                    onChanged();
                  },
                })
              }
            >
              New recovery codes
            </Button>
          </>
        ) : (
          <Button onClick={() => openDialog('enable-twofactor', { onDone: onChanged })}>Turn on</Button>
        )}
      </div>
      {codes ? (
        <div className="mt-4">
          <p className="mb-2 text-sm text-slate-600">Your new recovery codes. Save them now; they are not shown again.</p>
          <RecoveryCodes codes={codes} />
        </div>
      ) : null}
    </section>
  );
}

/** The account's sessions, this one marked; any other signed out, or all of them at once. */
function SessionsSection({ load, onChanged }: { load: EndpointLoad<SessionInfoData[]>; onChanged: () => void }) {
  const sessions = load.status === 'ready' ? load.data : null;
  return (
    <section aria-labelledby="sessions-heading" className="rounded-xl border border-slate-200 bg-white p-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="sessions-heading" className="text-lg font-semibold">
          Sessions
        </h2>
        <Button
          variant="secondary"
          disabled={!sessions || sessions.filter((s) => !s.current).length === 0}
          onClick={() =>
            openDialog('confirm', {
              title: 'Sign out everywhere else?',
              message: 'Every other browser and device signed in to your account is signed out at once.',
              confirmLabel: 'Sign out others',
              onConfirm: async () => {
                await revokeOtherSessions();
                notify('success', 'Other sessions signed out');
                onChanged();
              },
            })
          }
        >
          Sign out all other sessions
        </Button>
      </div>
      <EndpointView load={load} loading="Loading…" className="mt-3">
        {(sessions) => (
          <ul className="mt-4 divide-y divide-slate-100" data-testid="session-list">
            {sessions.map((s) => (
              <li key={s.sessionId} className="flex flex-wrap items-center justify-between gap-3 py-3">
                <div className="min-w-0 wrap-anywhere">
                  <p className="font-medium">
                    {s.device}{' '}
                    {s.current ? (
                      <span className="ml-2 rounded-full bg-brand-50 px-2 py-0.5 text-xs font-semibold text-brand-700">This session</span>
                    ) : null}
                  </p>
                  <p className="text-sm text-slate-500">
                    {s.ip ?? 'Unknown address'} · last seen {when(s.lastSeenAt)}
                  </p>
                </div>
                {!s.current ? (
                  <Button
                    variant="ghost"
                    onClick={async () => {
                      await revokeSession(s.sessionId);
                      notify('success', 'Session signed out');
                      onChanged();
                    }}
                  >
                    Sign out
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </EndpointView>
    </section>
  );
}

/** A new password, typed twice after the current one; the other sessions may be signed out with it. */
function PasswordSection({ onChanged }: { onChanged: () => void }) {
  const password = useForm(changePasswordForm);
  const [endOthers, setEndOthers] = useState(true);
  const submitPassword = password.handleSubmit(async (values) => {
    await changePassword({ currentPassword: values.currentPassword, newPassword: values.newPassword, endOtherSessions: endOthers });
    // Emptied at once: passwords should not linger, and a late second click must not send the old one again.
    password.reset();
    notify('success', 'Password changed', endOthers ? 'Your other sessions were signed out.' : undefined);
    onChanged();
  });
  return (
    <section aria-labelledby="password-heading" className="rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="password-heading" className="text-lg font-semibold">
        Change password
      </h2>
      <form className="mt-4 max-w-sm space-y-4" onSubmit={submitPassword} noValidate>
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          error={password.errors.currentPassword}
          {...password.field('currentPassword')}
        />
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          error={password.errors.newPassword}
          {...password.field('newPassword')}
        />
        <Field
          label="Confirm new password"
          type="password"
          autoComplete="new-password"
          error={password.errors.newPasswordConfirmation}
          {...password.field('newPasswordConfirmation')}
        />
        <label className="flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" checked={endOthers} onChange={(e) => setEndOthers(e.target.checked)} />
          Sign out my other sessions
        </label>
        <Button type="submit" busy={password.submitting}>
          Change password
        </Button>
      </form>
    </section>
  );
}
