import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import { ENVIRONMENT_META, integrationHosts, isSupportPath, matchRoute } from '@spawnpoint/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from './config.ts';
import { failureBody } from './http/errors.ts';
import { pageCsp, pageHeaders } from './http/security-headers.ts';

const SPA_FALLBACK = '__spa-fallback.html';

/**
 * Serves the built web app on the API's port: files as they are, prerendered pages at their own path
 * (with or without a trailing slash, never redirected), other routes of the table through the SPA page,
 * and anything else through the SPA page with HTTP 404 so the app shows its 404 screen. Routes whose pages
 * all come from content at build (blog posts and pages) exist only as the files the build wrote: any other
 * path of theirs is unknown too.
 */
/** Sends the site's 404 page (the app shows its 404 screen); the envelope where the app is not built. */
export type NotFoundPage = (request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * Whether a page of a route with a parameter shows something (a listed server of that name): one that does
 * not is answered 404, so search engines and links checkers see the same "not found" the page shows.
 */
export type PageExists = (routeName: string, pathname: string) => Promise<boolean>;

export async function installWeb(app: FastifyInstance, config: Config, pageExists: PageExists = async () => true): Promise<NotFoundPage> {
  const root = config.webDist;
  const built = existsSync(path.join(root, SPA_FALLBACK));
  if (built) {
    await app.register(fastifyStatic, {
      root,
      prefix: '/',
      index: false,
      wildcard: false,
      cacheControl: false,
      // The build writes .br and .gz copies (apps/web/scripts/compress-build.ts).
      preCompressed: true,
      // Prerendered pages are reached by their route path, not as /x/index.html.
      allowedPath: (pathname) => !pathname.endsWith('.html'),
      setHeaders: (res, filePath) => {
        if (filePath.includes(`${path.sep}assets${path.sep}`)) {
          res.setHeader('cache-control', 'public, max-age=31536000, immutable');
        } else {
          res.setHeader('cache-control', 'no-cache');
        }
      },
    });
  } else {
    app.log.warn({ root }, 'web app not built: run `npm run build` (npm start does it when missing)');
  }

  // Pages are small and few: read once, with their Content-Security-Policy computed from their inline scripts.
  const pages = new Map<string, Page>();
  // Hosts of the integrations that are configured; none by default.
  const enabled = [
    config.ANALYTICS_KEY && integrationHosts.analytics,
    config.CHAT_WIDGET_ID && integrationHosts.chatWidget,
    config.TAG_MANAGER_ID && integrationHosts.tagManager,
    config.ADS_CLIENT && integrationHosts.ads,
  ].filter((h): h is (typeof integrationHosts)[keyof typeof integrationHosts] => Boolean(h));
  // The dashboard sends uploads straight to the nodes (signed links), so pages may connect to where browsers
  // reach them, and nowhere else.
  const nodeOrigins = new Set(config.AGENTS.map((node) => new URL(node.downloadUrl ?? node.url).origin));
  const extra = { script: enabled.map((h) => h.script), connect: [...enabled.map((h) => h.connect), ...nodeOrigins] };
  // Pages say which environment serves them, so the app shows error details outside production;
  // the build cannot know, as one build may run anywhere (apps/web/app/lib/environment.ts).
  const environmentTag = `<meta name="${ENVIRONMENT_META}" content="${config.NODE_ENV}">`;
  const page = (file: string) => {
    let entry = pages.get(file);
    if (!entry) {
      const html = readFileSync(path.join(root, file), 'utf8').replace(/<head>/i, (head) => head + environmentTag);
      entry = { html, csp: pageCsp(html, extra), br: brotliCompressSync(html), gzip: gzipSync(html) };
      pages.set(file, entry);
    }
    return entry;
  };

  const notFoundPage: NotFoundPage = (request, reply) =>
    built
      ? sendPage(request, reply.status(404).header('cache-control', 'no-cache'), page(SPA_FALLBACK))
      : reply.status(404).send(failureBody('NOT_FOUND'));

  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const url = new URL(request.url, 'http://local');
    const pathname = decodeSafe(url.pathname);
    if (
      pathname === null ||
      pathname.split('/').includes('..') ||
      pathname.startsWith('/v1/') ||
      (request.method !== 'GET' && request.method !== 'HEAD')
    ) {
      return reply.status(404).send(failureBody('NOT_FOUND'));
    }
    if (isSupportPath(pathname)) return reply.redirect(config.SUPPORT_URL, 302);
    const rule = config.ROUTE_RULES[pathname];
    if (rule) return reply.redirect(rule, 302);
    // The blog's first page is the blog itself (its links never name page 1; a typed or shared one may).
    // The query is kept (a shared link's `?r=` referral code, say).
    if (/^\/blog\/page\/0*1\/?$/.test(pathname)) {
      const query = request.url.indexOf('?');
      return reply.redirect(`/blog${query === -1 ? '' : request.url.slice(query)}`, 301);
    }
    if (!built) {
      return reply.status(503).type('text/plain').send('The web app is not built yet. Run `npm run build`, then reload.');
    }
    reply.header('cache-control', 'no-cache');
    const route = matchRoute(pathname);
    if (route) {
      // Prerendered pages include blog posts and pages, so look for the file of this exact path.
      const clean = pathname.replace(/\/+$/, '');
      const file = clean === '' ? 'index.html' : path.join(clean.slice(1), 'index.html');
      if (existsSync(path.join(root, file))) return sendPage(request, reply, page(file));
    }
    // A content route's path with no file is no post (also its `.data`, which the app fetches for it).
    const known = route !== null && route.prerender !== 'content' && (await pageExists(route.name, pathname));
    return sendPage(request, reply.status(known ? 200 : 404), page(SPA_FALLBACK));
  });
  return notFoundPage;
}

interface Page {
  html: string;
  csp: string;
  br: Buffer;
  gzip: Buffer;
}

/** Sends a page compressed the best way the browser accepts. */
function sendPage(request: FastifyRequest, reply: FastifyReply, page: Page) {
  pageHeaders(reply, page.csp).header('vary', 'accept-encoding').type('text/html; charset=utf-8');
  const accepted = String(request.headers['accept-encoding'] ?? '');
  if (request.method === 'HEAD') return reply.send(page.html);
  if (/\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(page.br);
  if (/\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(page.gzip);
  return reply.send(page.html);
}

function decodeSafe(pathname: string): string | null {
  try {
    const decoded = decodeURIComponent(pathname);
    return decoded.includes('\0') ? null : decoded;
  } catch {
    return null;
  }
}
