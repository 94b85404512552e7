import { endpoints, type InvitationPreview } from '@spawnpoint/contracts';
import { storedInvite } from '../lib/invitations.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';

/** What the invitation kept from its link offers (null: none kept, or it cannot be read). */
export function useInvitePreview(): InvitationPreview | null {
  // Kept by the root from the link (lib/query-params.ts), until the invitation is accepted.
  const token = storedInvite();
  // A link that no longer works says so when it is accepted; here it only shows nothing.
  const preview = useEndpoint(endpoints.invitationPreview, { body: { token: token ?? '' } }, { enabled: token !== null });
  return preview.load.status === 'ready' ? preview.load.data : null;
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
