import { activityResult, sessionsResult, twoFactorEnableResult, twoFactorSetupResult } from '@spawnpoint/contracts';
import { z } from 'zod';
import { api } from './api.ts';
import { fetchUser } from './user-store.ts';

export const getTwoFactorSetup = () => api('GET', '/v1/user/twofactor/enable', { result: twoFactorSetupResult });

export async function enableTwoFactor(token: string, endOtherSessions: boolean) {
  // INVALID_TWOFACTOR is shown inside the dialog, so this call is handled there.
  const result = await api('POST', '/v1/user/twofactor/enable', {
    body: { token, endOtherSessions },
    result: twoFactorEnableResult,
    background: true,
  });
  await fetchUser();
  return result.recoveryCodes;
}

export async function disableTwoFactor(token: string) {
  await api('POST', '/v1/user/twofactor/disable', { body: { token }, result: z.null(), background: true });
  await fetchUser();
}

export const regenerateRecoveryCodes = (token: string) =>
  api('POST', '/v1/user/twofactor/recovery-codes', { body: { token }, result: twoFactorEnableResult });

export const listSessions = () => api('GET', '/v1/user/sessions', { result: sessionsResult });
export const revokeSession = (sessionId: string) =>
  api('DELETE', `/v1/user/sessions/${encodeURIComponent(sessionId)}`, { result: z.null() });
export const revokeOtherSessions = () => api('POST', '/v1/user/sessions/revoke-others', { body: {}, result: z.null() });
export const listActivity = () => api('GET', '/v1/user/activity', { result: activityResult });

export const changePassword = (body: { currentPassword: string; newPassword: string; endOtherSessions: boolean }) =>
  api('POST', '/v1/user/password', { body, result: z.null() });
export const requestEmailChange = (body: { newEmailAddress: string; password: string }) =>
  api('POST', '/v1/user/email', { body, result: z.null() });
export const confirmEmailChange = (token: string) => api('POST', '/v1/user/email/confirm', { body: { token }, result: z.null() });
export const deleteAccount = (password: string) => api('POST', '/v1/user/delete', { body: { password }, result: z.null() });
