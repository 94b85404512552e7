/** The mails we send. Plain wording, one clear link, a text part for every HTML part. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  link: string;
}

function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, intro: string, button: string, link: string, outro: string): string {
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1f2937;max-width:560px;margin:0 auto;padding:24px">
<h1 style="font-size:20px">${escape(title)}</h1><p>${escape(intro)}</p>
<p><a href="${escape(link)}" style="display:inline-block;background:#16a34a;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escape(button)}</a></p>
<p style="font-size:13px;color:#6b7280">Or paste this link into your browser:<br>${escape(link)}</p>
<p style="font-size:13px;color:#6b7280">${escape(outro)}</p></body></html>`;
}

export function verificationMail(publicUrl: string, token: string): RenderedMail {
  const link = `${publicUrl}/?verify_token=${token}`;
  const intro = 'Welcome to Spawnpoint! Please confirm your email address so you can create servers.';
  const outro = 'The link works once and expires in 24 hours. If you did not create an account, ignore this email.';
  return {
    subject: 'Verify your Spawnpoint email address',
    link,
    text: `${intro}\n\n${link}\n\n${outro}\n`,
    html: layout('Verify your email address', intro, 'Verify email address', link, outro),
  };
}

export function passwordResetMail(publicUrl: string, token: string): RenderedMail {
  const link = `${publicUrl}/password-recovery?token=${token}`;
  const intro = 'Someone asked to reset the password of your Spawnpoint account. Choose a new password here:';
  const outro = 'The link works once and expires in 1 hour. If you did not ask for this, ignore this email: your password stays the same.';
  return {
    subject: 'Reset your Spawnpoint password',
    link,
    text: `${intro}\n\n${link}\n\n${outro}\n`,
    html: layout('Reset your password', intro, 'Choose a new password', link, outro),
  };
}

/** Sent to the new address. When it already has an account, it says so instead of carrying a link. */
export function emailChangeMail(publicUrl: string, token: string | null): RenderedMail {
  if (!token) {
    const text =
      'Someone asked to move a Spawnpoint account to this email address, but this address already has an account, so nothing changed. If it was you, sign in with this address instead.';
    return { subject: 'Email change on Spawnpoint', link: publicUrl, text: `${text}\n`, html: `<p>${escape(text)}</p>` };
  }
  const link = `${publicUrl}/account?email_token=${token}`;
  const intro = 'Confirm that you want to use this address for your Spawnpoint account.';
  const outro = 'The link works once and expires in 24 hours. If you did not ask for this, ignore this email.';
  return {
    subject: 'Confirm your new Spawnpoint email address',
    link,
    text: `${intro}\n\n${link}\n\n${outro}\n`,
    html: layout('Confirm your new email address', intro, 'Use this address', link, outro),
  };
}

/**
 * To the address an account leaves: the change is said where the owner still reads, so a change they did
 * not make does not go unnoticed (recovering the account then goes through support).
 */
export function emailChangedMail(publicUrl: string, newEmailAddress: string): RenderedMail {
  const text = `The email address of your Spawnpoint account was changed to ${newEmailAddress}. If you did not do this, your password is known to someone else: contact support at once.`;
  return { subject: 'Your Spawnpoint email address was changed', link: publicUrl, text: `${text}\n`, html: `<p>${escape(text)}</p>` };
}

const roleWords = { viewer: 'a viewer', moderator: 'a moderator', administrator: 'an administrator' } as const;

/** An invitation to a server. Whether the address has an account decides what the link asks first. */
export function invitationMail(
  publicUrl: string,
  token: string,
  invite: { serverName: string; inviter: string; role: keyof typeof roleWords; hasAccount: boolean },
): RenderedMail {
  const link = `${publicUrl}/?invite_token=${token}`;
  const intro = `${invite.inviter} invited you to the Minecraft server ${invite.serverName} on Spawnpoint as ${roleWords[invite.role]}. ${
    invite.hasAccount ? 'Sign in with this address to accept.' : 'Create a free account with this address to accept.'
  }`;
  const outro = 'The link works once, only for this address, and expires in 7 days. If you do not know the sender, ignore this email.';
  return {
    subject: `You are invited to ${invite.serverName} on Spawnpoint`,
    link,
    text: `${intro}\n\n${link}\n\n${outro}\n`,
    html: layout(`Join ${invite.serverName}`, intro, 'Accept the invitation', link, outro),
  };
}
