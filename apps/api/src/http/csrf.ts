import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * ARCHITECTURE §4: a state-changing request must be JSON (or multipart for uploads) and must come from
 * our own origin. Browsers always send Origin or Sec-Fetch-Site on cross-site POSTs, so a request with
 * neither is a non-browser client (curl, the agent, tests) and carries no ambient cookie risk.
 */
export function installCsrfCheck(app: FastifyInstance, allowedOrigins: readonly string[]): void {
  const allowed = new Set(allowedOrigins);
  // A plain (not async) hook: it runs on every request, and a promise per request is measurable there.
  app.addHook('onRequest', (request, _reply, done) => {
    if (SAFE_METHODS.has(request.method)) return done();
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!allowed.has(origin)) return done(new ApiError('NO_PERMISSION', undefined, 'Cross-site requests are not allowed.'));
    } else if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      return done(new ApiError('NO_PERMISSION', undefined, 'Cross-site requests are not allowed.'));
    }
    const type = request.headers['content-type'];
    if (type !== undefined) {
      const mime = type.split(';')[0]?.trim().toLowerCase();
      if (mime !== 'application/json' && mime !== 'multipart/form-data') {
        return done(new ApiError('INVALID_INPUT', { _: 'The request body must be JSON.' }));
      }
    }
    done();
  });
}
