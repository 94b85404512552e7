/** Query parameters read on any page: verify_token, invite_token, r. */
export const INVITE_KEY = 'spawnpoint:invite_token';
export const REFERRAL_KEY = 'spawnpoint:referral';

export function storedReferral(): string | undefined {
  try {
    return localStorage.getItem(REFERRAL_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `r` for the referral call and `invite_token` until the server it names can be opened. */
export function keepQueryParams(search: URLSearchParams): void {
  try {
    const referral = search.get('r');
    if (referral && /^[A-Za-z0-9_-]{1,64}$/.test(referral)) localStorage.setItem(REFERRAL_KEY, referral);
    const invite = search.get('invite_token');
    if (invite && /^[A-Za-z0-9_.-]{16,256}$/.test(invite)) sessionStorage.setItem(INVITE_KEY, invite);
  } catch {
    // Storage can be disabled; the parameters then simply are not kept.
  }
}

export function forgetReferral(): void {
  try {
    localStorage.removeItem(REFERRAL_KEY);
  } catch {
    // nothing kept
  }
}
