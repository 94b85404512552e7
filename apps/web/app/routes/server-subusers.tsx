import {
  canGrant,
  endpoints,
  memberRoles,
  roleDescriptions,
  type MemberRole,
  type ServerMembersResult,
  type ServerRole,
} from '@spawnpoint/contracts';
import { useState } from 'react';
import { useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { Field, FormError } from '../components/field.tsx';
import { EndpointView } from '../components/endpoint-view.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { ApiFailure, call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { useSending } from '../lib/use-sending.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useServer } from '../lib/use-server.ts';
import { useUser } from '../lib/user-store.ts';

export const meta = () => pageMeta('servers-id-subusers', 'Invite friends to your Minecraft server with the access you choose.');

const roleNames: Record<ServerRole, string> = { viewer: 'Viewer', moderator: 'Moderator', administrator: 'Administrator', owner: 'Owner' };
const select = 'rounded-md border border-slate-300 bg-white px-2 py-2 text-sm';

export default function ServerSubusersPage() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const myId = useUser((s) => s.userData?.userId);
  const myRole = load.status === 'ready' ? load.server.role : null;
  const mayManage = load.status === 'ready' && load.server.permissions.includes('members.manage');

  const members = useEndpoint(
    endpoints.serverMembers,
    { params: { serverId: id } },
    { enabled: mayManage, failureMessage: 'The members could not be loaded. Please reload the page.' },
  );
  const reload = async () => {
    await members.reload();
  };

  // Only roles whose keys the caller holds are offered (the API refuses the others too).
  const grantable = memberRoles.filter((role) => myRole !== null && canGrant(myRole, role));

  return (
    <ServerShell serverId={id} load={load}>
      {load.status === 'ready' && !mayManage ? (
        <p className="rounded-xl border border-slate-200 bg-white p-6 text-slate-600">Only the owner and administrators manage members.</p>
      ) : (
        <div className="grid max-w-3xl gap-6">
          <InviteForm serverId={id} roles={grantable} onInvited={reload} />
          <EndpointView load={members.load} loading="Loading members…" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
            {(data) => (
              <>
                <section aria-labelledby="members-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
                  <h2 id="members-heading" className="text-lg font-semibold">
                    Members
                  </h2>
                  <ul className="mt-3 divide-y divide-slate-100">
                    {data.members.map((member) => (
                      <li key={member.userId} className="flex flex-wrap items-center gap-x-3 gap-y-2 py-3">
                        <span className="min-w-0 flex-1 basis-48 break-all text-sm font-medium">{member.emailAddress}</span>
                        {member.role === 'owner' || member.userId === myId || !myRole || !canGrant(myRole, member.role) ? (
                          <span className="text-sm text-slate-600">
                            {roleNames[member.role]}
                            {member.userId === myId ? ' (you)' : ''}
                          </span>
                        ) : (
                          <MemberControls
                            serverId={id}
                            userId={member.userId}
                            emailAddress={member.emailAddress}
                            role={member.role}
                            roles={grantable}
                            onChanged={reload}
                          />
                        )}
                      </li>
                    ))}
                  </ul>
                </section>
                <PendingInvitations serverId={id} invitations={data.invitations} onChanged={reload} />
              </>
            )}
          </EndpointView>
          <section aria-labelledby="roles-heading" className="text-sm text-slate-600">
            <h2 id="roles-heading" className="font-semibold text-slate-800">
              Roles
            </h2>
            <dl className="mt-2 space-y-1">
              {(['viewer', 'moderator', 'administrator', 'owner'] as const).map((role) => (
                <div key={role}>
                  <dt className="inline font-medium">{roleNames[role]}: </dt>
                  <dd className="inline">{roleDescriptions[role]}</dd>
                </div>
              ))}
            </dl>
          </section>
        </div>
      )}
    </ServerShell>
  );
}

function InviteForm({ serverId, roles, onInvited }: { serverId: string; roles: MemberRole[]; onInvited: () => Promise<void> }) {
  const [emailAddress, setEmailAddress] = useState('');
  const [role, setRole] = useState<MemberRole>('moderator');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const { sending, send } = useSending();

  function submit(event: React.FormEvent) {
    event.preventDefault();
    void send(async () => {
      setErrors({});
      setFormError(undefined);
      try {
        const invitation = await call(endpoints.invitationCreate, { params: { serverId }, body: { emailAddress, role } });
        notify('success', 'Invitation sent', `${invitation.emailAddress} can accept it for 7 days.`);
        setEmailAddress('');
        await onInvited();
      } catch (failure) {
        if (failure instanceof ApiFailure) {
          setErrors(failure.fields);
          if (Object.keys(failure.fields).length === 0) setFormError(failure.message);
        }
      }
    });
  }

  return (
    <form onSubmit={submit} noValidate aria-labelledby="invite-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
      <h2 id="invite-heading" className="text-lg font-semibold">
        Invite someone
      </h2>
      <p className="mt-1 text-sm text-slate-600">They get a link by email that works once, for 7 days, for that address only.</p>
      <div className="mt-4 flex flex-wrap items-end gap-3">
        <Field
          id="invite-email"
          label="Email address"
          type="email"
          autoComplete="off"
          required
          className="min-w-0 flex-1 basis-56"
          value={emailAddress}
          onChange={(e) => setEmailAddress(e.target.value)}
          error={errors.emailAddress}
        />
        <div>
          <label htmlFor="invite-role" className="block text-sm font-medium text-slate-700">
            Role
          </label>
          <select id="invite-role" className={`mt-1 ${select}`} value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {roleNames[r]}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" busy={sending}>
          Send invitation
        </Button>
      </div>
      <div className="mt-3">
        <FormError message={formError} />
      </div>
    </form>
  );
}

function MemberControls(props: {
  serverId: string;
  userId: string;
  emailAddress: string;
  role: MemberRole;
  roles: MemberRole[];
  onChanged: () => Promise<void>;
}) {
  const { serverId, userId, emailAddress, role, roles, onChanged } = props;
  const { sending, send } = useSending();
  const selectId = `role-${userId}`;
  return (
    <span className="flex flex-wrap items-center gap-2">
      <label htmlFor={selectId} className="sr-only">
        Role of {emailAddress}
      </label>
      <select
        id={selectId}
        className={select}
        value={role}
        disabled={sending}
        aria-busy={sending || undefined}
        onChange={(e) => {
          const next = e.target.value as MemberRole;
          void send(async () => {
            try {
              await call(endpoints.memberRole, { params: { serverId, userId }, body: { role: next } });
              notify('success', 'Role changed', `${emailAddress} is now ${roleNames[next].toLowerCase()}.`);
            } catch {
              // the API client's error toast explains
            }
            await onChanged();
          });
        }}
      >
        {roles.map((r) => (
          <option key={r} value={r}>
            {roleNames[r]}
          </option>
        ))}
      </select>
      <Button
        variant="danger"
        aria-label={`Remove ${emailAddress}`}
        onClick={() =>
          openDialog('confirm', {
            title: `Remove ${emailAddress}?`,
            message: 'They lose access to this server at once; an open console stops.',
            confirmLabel: 'Remove',
            danger: true,
            onConfirm: async () => {
              await call(endpoints.memberRemove, { params: { serverId, userId } });
              notify('success', 'Member removed', `${emailAddress} no longer has access.`);
              await onChanged();
            },
          })
        }
      >
        Remove
      </Button>
    </span>
  );
}

/** Invitations not accepted yet: who, which role, until when; sent again or revoked. */
function PendingInvitations({
  serverId,
  invitations,
  onChanged,
}: {
  serverId: string;
  invitations: ServerMembersResult['invitations'];
  onChanged: () => Promise<void>;
}) {
  return (
    <section aria-labelledby="invitations-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
      <h2 id="invitations-heading" className="text-lg font-semibold">
        Pending invitations
      </h2>
      {invitations.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">No invitations are waiting.</p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100">
          {invitations.map((invitation) => (
            <li key={invitation.invitationId} className="flex flex-wrap items-center gap-x-3 gap-y-2 py-3">
              <span className="min-w-0 flex-1 basis-48 text-sm">
                <span className="block break-all font-medium">{invitation.emailAddress}</span>
                <span className="text-slate-500">
                  {roleNames[invitation.role]} · expires{' '}
                  {new Date(invitation.expiresAt).toLocaleDateString('en-US', { dateStyle: 'medium' })}
                </span>
              </span>
              <Button
                variant="secondary"
                aria-label={`Resend the invitation to ${invitation.emailAddress}`}
                onClick={async () => {
                  await call(endpoints.invitationResend, { params: { serverId, invitationId: invitation.invitationId } });
                  notify('success', 'Invitation sent again', `A new link went to ${invitation.emailAddress}.`);
                  await onChanged();
                }}
              >
                Resend
              </Button>
              <Button
                variant="danger"
                aria-label={`Revoke the invitation to ${invitation.emailAddress}`}
                onClick={async () => {
                  await call(endpoints.invitationRevoke, { params: { serverId, invitationId: invitation.invitationId } });
                  notify('success', 'Invitation revoked', `The link sent to ${invitation.emailAddress} no longer works.`);
                  await onChanged();
                }}
              >
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
