import { endpoints } from '@spawnpoint/contracts';
import { call, type EndpointInput } from './api.ts';
import { fetchUser } from './user-store.ts';

export const getTwoFactorSetup = () => call(endpoints.twoFactorSetup, {});

export async function enableTwoFactor(token: string, endOtherSessions: boolean) {
  // INVALID_TWOFACTOR is shown inside the dialog, so this call is handled there.
  const result = await call(endpoints.twoFactorEnable, { body: { token, endOtherSessions } }, { background: true });
  await fetchUser();
  return result.recoveryCodes;
}

export async function disableTwoFactor(token: string) {
  await call(endpoints.twoFactorDisable, { body: { token } }, { background: true });
  await fetchUser();
}

export const regenerateRecoveryCodes = (token: string) => call(endpoints.recoveryCodes, { body: { token } });

export const revokeSession = (sessionId: string) => call(endpoints.sessionEnd, { params: { sessionId } });
export const revokeOtherSessions = () => call(endpoints.sessionsEndOthers, {});

export const changePassword = (body: EndpointInput<typeof endpoints.passwordChange>['body']) => call(endpoints.passwordChange, { body });
export const requestEmailChange = (body: EndpointInput<typeof endpoints.emailChange>['body']) => call(endpoints.emailChange, { body });
export const confirmEmailChange = (token: string) => call(endpoints.emailChangeConfirm, { body: { token } });
export const deleteAccount = (password: string) => call(endpoints.accountDelete, { body: { password } });
