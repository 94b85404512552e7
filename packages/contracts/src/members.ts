import { z } from 'zod';
import { memberRole, permissionKey, serverRole } from './permissions.ts';
import { EMAIL_MAX, isEmail, validationMessages } from './validation.ts';

/** Members of a server and invitations to become one (docs/guide.md, Members, roles and invitations). */

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Pending invitations a server may have at once. */
export const PENDING_INVITATIONS_MAX = 20;
/** Members a server may have (besides its owner). */
export const SERVER_MEMBERS_MAX = 25;

const safeId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/);

export const memberParams = z.object({ serverId: safeId, userId: safeId });
export const invitationParams = z.object({ serverId: safeId, invitationId: safeId });

/** What the API sends with a server: the caller's role on it and the keys that role holds. */
export const serverAccess = z.object({ role: serverRole, permissions: z.array(permissionKey) });
export type ServerAccess = z.infer<typeof serverAccess>;

export const serverMember = z.object({
  userId: z.string(),
  emailAddress: z.string(),
  role: serverRole,
  /** When they joined (the owner: when the server was made). */
  since: z.string(),
});
export type ServerMember = z.infer<typeof serverMember>;

export const serverInvitation = z.object({
  invitationId: z.string(),
  emailAddress: z.string(),
  role: memberRole,
  /** When the mail was last sent (made or resent). */
  sentAt: z.string(),
  expiresAt: z.string(),
});
export type ServerInvitation = z.infer<typeof serverInvitation>;

/** `GET /v1/server/{id}/members`: the owner first, then members, and the invitations not yet accepted. */
export const serverMembersResult = z.object({ members: z.array(serverMember), invitations: z.array(serverInvitation) });
export type ServerMembersResult = z.infer<typeof serverMembersResult>;

export const invitationCreateRequest = z.object({
  emailAddress: z
    .string({ error: validationMessages.required('email address') })
    .trim()
    .toLowerCase()
    .min(1, validationMessages.required('email address'))
    .max(EMAIL_MAX, validationMessages.max('email address', EMAIL_MAX))
    .refine(isEmail, validationMessages.email('email address')),
  role: memberRole,
});
export type InvitationCreateRequest = z.infer<typeof invitationCreateRequest>;

export const memberRoleRequest = z.object({ role: memberRole });

/** `POST /v1/server/invite`: the token of the mailed link. */
export const invitationAcceptRequest = z.object({
  token: z
    .string({ error: 'This invitation link is not valid.' })
    .min(16, 'This invitation link is not valid.')
    .max(256, 'This invitation link is not valid.')
    .regex(/^[A-Za-z0-9_-]+$/, 'This invitation link is not valid.'),
});
export const invitationAcceptResult = z.object({ serverId: z.string() });
/** What an invitation link offers, shown before signing up or in: who invited whom, to which server, as what. */
export const invitationPreviewResult = z.object({
  serverName: z.string(),
  role: memberRole,
  /** The address the invitation was sent to: the account that accepts it must have it. */
  emailAddress: z.string(),
  /** Who sent it (their address), or null when their account is gone. */
  invitedBy: z.string().nullable(),
});
export type InvitationPreview = z.infer<typeof invitationPreviewResult>;

/** The answers the member endpoints give for refused input, so the web app and the tests share the words. */
export const memberMessages = {
  inviteSelf: 'You cannot invite yourself.',
  inviteOwner: 'This is the owner of the server, who already has every permission.',
  alreadyMember: 'This person is already a member of this server. Change their role instead.',
  alreadyInvited: 'This address already has a pending invitation. Resend it instead.',
  tooManyInvitations: `A server can have at most ${PENDING_INVITATIONS_MAX} pending invitations. Revoke some first.`,
  tooManyMembers: `A server can have at most ${SERVER_MEMBERS_MAX} members.`,
  ownRole: 'You cannot change your own role.',
  ownerRole: 'The owner of a server cannot be changed or removed.',
  ownerLeave: 'You own this server, so you cannot leave it. Delete it instead.',
  grant: 'You can only give a role whose permissions you hold yourself.',
  invalidToken: 'This invitation link is not valid. Ask for a new invitation.',
  expiredToken: 'This invitation has expired. Ask the server owner for a new one.',
  usedToken: 'This invitation has already been used.',
  senderGone: 'This invitation is no longer valid: whoever sent it can no longer give this role. Ask the server owner for a new one.',
  otherAddress: 'This invitation was sent to another email address. Sign in with that address to accept it.',
} as const;
