import { endpoints, type InvitationPreview } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { call } from '../lib/api.ts';
import { storedInvite } from '../lib/invitations.ts';

/** What the invitation kept from its link offers (null: none kept, or it cannot be read). */
export function useInvitePreview(): InvitationPreview | null {
  const [preview, setPreview] = useState<InvitationPreview | null>(null);
  useEffect(() => {
    const token = storedInvite();
    if (!token) return;
    let active = true;
    // A link that no longer works says so when it is accepted; here it only shows nothing.
    call(endpoints.invitationPreview, { body: { token } }, { background: true }).then(
      (found) => active && setPreview(found),
      () => undefined,
    );
    return () => {
      active = false;
    };
  }, []);
  return preview;
}

/** Says who invited the visitor to which server, and with which address to sign up or in to accept it. */
export function InviteBanner({ preview, action }: { preview: InvitationPreview; action: 'create an account' | 'sign in' }) {
  return (
    <section
      role="status"
      data-testid="invite-banner"
      className="mt-4 rounded-lg border border-brand-100 bg-brand-50 p-3 text-sm text-slate-800"
    >
      <p className="font-semibold">
        {preview.invitedBy ?? 'A server owner'} invited you to {preview.serverName} as {preview.role === 'administrator' ? 'an' : 'a'}{' '}
        {preview.role}.
      </p>
      <p className="mt-1 break-words">
        {action === 'create an account' ? 'Create an account' : 'Sign in'} with <strong>{preview.emailAddress}</strong> to accept it.
      </p>
    </section>
  );
}
