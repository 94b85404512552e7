import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CATALOGUE_ICON_ORIGINS } from '@spawnpoint/contracts';
import type { Config } from '../config.ts';

/** Allows nothing: API answers, and any answer without a policy of its own (the API's docs page has no script or style). */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Headers on every answer. HTML pages get the two headers that act only in a document (the referrer
 * policy, the opener policy) and set their own Content-Security-Policy (`pageCsp`); an answer without one
 * gets a policy that allows nothing. API answers (`/v1/`, not HTML) say `Cache-Control: no-store` unless
 * they say otherwise: they carry accounts, sessions and secrets, which no browser or shared cache should keep.
 * Pages are told by their content type, not by their policy: a request handed to another API process comes
 * back with that process's headers, its policy included (route.ts, `answerHanded`).
 */
export function installSecurityHeaders(app: FastifyInstance, config: Config): void {
  const always: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    ...(config.production ? { 'strict-transport-security': 'max-age=63072000; includeSubDomains' } : {}),
  };
  const page: Record<string, string> = {
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-opener-policy': 'same-origin',
  };
  // A plain (not async) hook with the headers built once: it runs on every answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(always);
    const type = reply.getHeader('content-type');
    const html = typeof type === 'string' && type.startsWith('text/html');
    if (html) reply.headers(page);
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', API_CSP);
    if (!html && request.url.startsWith('/v1/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}

/**
 * The policy of one HTML page: scripts only from our origin plus the exact inline scripts of that page
 * (by hash); styles from our origin and inline (React and the toast library set style attributes).
 */
export function pageCsp(
  html: string,
  extra: { script: readonly string[]; connect: readonly string[] } = { script: [], connect: [] },
): string {
  const hashes = new Set<string>();
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    const body = match[1] ?? '';
    if (body.length) hashes.add(`'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
  }
  const connect = ["'self'", ...extra.connect].join(' ');
  return [
    "default-src 'self'",
    `script-src 'self' ${[...extra.script, ...hashes].join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    // Plugin catalogues' icons (the Plugins page) come from their image hosts.
    `img-src 'self' data: ${[...CATALOGUE_ICON_ORIGINS, ...extra.script].join(' ')}`.trim(),
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}
