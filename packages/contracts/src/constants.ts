/** Business constants shared by web and API. */
export const NOTIFICATION_DURATION_MS = 5000;
export const SERVER_LIST_POLL_MS = 5000;
export const RELOAD_GUARD_MS = 10_000;
export const API_RETRIES = 3;
export const SOCKET_OPTIONS = {
  timeout: 20_000,
  reconnectionDelay: 1000,
  reconnectionDelayMax: 5000,
  randomizationFactor: 0.5,
  reconnectionAttempts: Infinity,
} as const;
export const LOADING_BAR = { throttle: 200, duration: 2000, hideDelay: 500, resetDelay: 400, height: 3 } as const;
export const DEFAULT_CURRENCY = 'USD';
export const SESSION_COOKIE = 'sp_session';
export const SESSION_COOKIE_SECURE = '__Host-sp_session';
/** The meta tag in which the API tells every page it serves its NODE_ENV (error details show outside production). */
export const ENVIRONMENT_META = 'spawnpoint-environment';

/**
 * A server's name as `serverName` (servers.ts) accepts it once lowercased: 3 to 16 letters, digits and
 * dashes, not starting or ending with a dash. Here without zod, for the route table's parameter check.
 */
export const SERVER_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{1,14}[a-z0-9]$/i;
