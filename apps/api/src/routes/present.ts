import { createHmac } from 'node:crypto';
import type { UserData } from '@spawnpoint/contracts';
import type { UserRow } from '../db/rows.ts';

/** The one place a user row becomes the `userData` the web app sees. */
export function presentUser(user: UserRow, secret: string): UserData {
  return {
    userId: user.id,
    emailAddress: user.emailAddress,
    emailVerified: user.emailVerifiedAt !== null,
    twoFactorEnabled: user.twoFactorEnabledAt !== null,
    createdAt: user.createdAt.toISOString(),
    // Stable, not guessable: lets the chat widget recognise the user without exposing the id.
    chatWidgetToken: createHmac('sha256', secret).update(`chat:${user.id}`).digest('hex').slice(0, 32),
  };
}
