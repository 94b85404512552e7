import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CATALOGUE_ICON_ORIGINS } from '@spawnpoint/contracts';
import type { Config } from '../config.ts';

/** Allows nothing: API answers, and any answer without a policy of its own. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/** The two headers that act only in a document: pages add them (`pageHeaders`). */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * Every answer's headers, set when its request arrives (by the app's one onRequest hook, api-server.ts); whatever
 * answers may replace them. Every answer gets nosniff, DENY for frames, HSTS in production and a
 * Content-Security-Policy that allows nothing, which pages replace with their own (`pageCsp`). API answers
 * (`/v1/`) also say `Cache-Control: no-store`: they carry accounts, sessions and secrets, which no browser or
 * shared cache should keep; an answer that says otherwise sets its own (the API's docs page, downloads).
 *
 * Set up front, not in an onSend hook that looks at the finished answer: every request then runs one hook
 * fewer, and the polled endpoint (`/v1/user/servers` every 5 s from every signed-in tab) is all hooks and
 * headers. A request another API process answers (route.ts, `answerHanded`) gets that process's headers,
 * which were set the same way.
 */
export function securityHeaders(config: Config): (request: FastifyRequest, reply: FastifyReply) => void {
  const hsts = config.production;
  // One call per header rather than `reply.headers` of an object: that lists the object's keys every time.
  return (request, reply) => {
    reply.header('x-content-type-options', 'nosniff').header('x-frame-options', 'DENY');
    if (hsts) reply.header('strict-transport-security', 'max-age=63072000; includeSubDomains');
    reply.header('content-security-policy', API_CSP);
    if (request.url.startsWith('/v1/')) reply.header('cache-control', 'no-store');
  };
}

/** A page's own headers: its policy (`pageCsp` for the site's pages) and the two that act only in a document. */
export function pageHeaders(reply: FastifyReply, csp: string): FastifyReply {
  return reply.headers(PAGE_HEADERS).header('content-security-policy', csp);
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
