import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A state-changing request must be JSON (or multipart for uploads) and must come from our own origin
 * (docs/guide.md, "CSRF"). Browsers always send Origin or Sec-Fetch-Site on cross-site POSTs, so a request
 * with neither is a non-browser client (curl, the agent, tests) and carries no ambient cookie risk.
 */
export function csrfCheck(allowedOrigins: readonly string[]): (request: FastifyRequest) => ApiError | undefined {
  const allowed = new Set(allowedOrigins);
  // Run by the app's one onRequest hook (api-server.ts): plain, no promise, as it runs on every request.
  return (request) => {
    if (SAFE_METHODS.has(request.method)) return undefined;
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!allowed.has(origin)) return new ApiError('NO_PERMISSION', undefined, 'Cross-site requests are not allowed.');
    } else if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      return new ApiError('NO_PERMISSION', undefined, 'Cross-site requests are not allowed.');
    }
    const type = request.headers['content-type'];
    if (type !== undefined) {
      const mime = type.split(';')[0]?.trim().toLowerCase();
      if (mime !== 'application/json' && mime !== 'multipart/form-data') {
        return new ApiError('INVALID_INPUT', { _: 'The request body must be JSON.' });
      }
    }
    return undefined;
  };
}
