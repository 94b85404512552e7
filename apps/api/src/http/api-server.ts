import { answerClientError, httpMetrics, loggerOptions, REQUEST_ID_HEADER, requestIdOf, requestLogController } from '@spawnpoint/logging';
import { errorStatus } from '@spawnpoint/contracts';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { NotFoundPage } from '../web.ts';
import { proxyTrust } from './client-address.ts';
import { csrfCheck } from './csrf.ts';
import { ApiError, failureBody } from './errors.ts';
import { createAddressBudget } from './rate-limits.ts';
import { securityHeaders } from './security-headers.ts';

/** Marks a request another API process handed to this one; its value is known only to this process. */
export const HANDED_HEADER = 'x-spawnpoint-handed';
const BODY_LIMIT = 64 * 1024;

/**
 * The API's Fastify instance before its routes: every request counted and given its id and the security
 * headers, cross-site writes refused, and each address held to its budget of API requests. `site` is where the
 * site's 404 page goes once the web app is installed; `handedHere` the marks of requests another process
 * handed to this one (counted there already).
 */
export function apiServer(config: Config) {
  // Every route's traffic is counted as each request finishes (the request-log controller tells the metrics;
  // metrics.ts adds the live gauges).
  const metrics = httpMetrics('spawnpoint_api_');
  const headers = securityHeaders(config);
  // Every answer says its request id (to quote when reporting a fault; calls to nodes carry it, nodes.ts) and
  // carries the security headers (security-headers.ts), refusals included.
  const everyAnswer = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    headers(request, reply);
  };
  const site: { notFoundPage?: NotFoundPage } = {};
  const app = Fastify({
    logger: loggerOptions({ level: config.LOG_LEVEL, format: config.logFormat, name: 'api' }),
    logController: requestLogController(config.LOG_LEVEL, metrics.record),
    genReqId: requestIdOf,
    clientErrorHandler: answerClientError,
    bodyLimit: BODY_LIMIT,
    // Only the load balancers listed in TRUST_PROXY may name the client (http/client-address.ts).
    trustProxy: proxyTrust(config.TRUST_PROXY),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // A path the router cannot read (broken %-escapes) or with a part longer than any id: answered in the
    // envelope with every answer's headers, not Fastify's own body echoing the path (http.test.ts); a person
    // who typed a broken address of the site gets its 404 page. Fastify writes no request line for these
    // (they never reach a route): one is written here.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      everyAnswer(request, reply);
      const code =
        error.code === 'FST_ERR_BAD_URL' ? 'INVALID_INPUT' : error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'NOT_FOUND' : 'INTERNAL_ERROR';
      if (code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'request errored before routing');
      else request.log.info({ code: error.code, method: request.method }, 'request refused before routing');
      const asksForPage = request.method === 'GET' || request.method === 'HEAD';
      if (code === 'INVALID_INPUT' && asksForPage && site.notFoundPage && !request.url.startsWith('/v1/')) {
        void site.notFoundPage(request, reply);
        return;
      }
      void reply
        .code(errorStatus(code))
        .send(failureBody(code, undefined, code === 'INVALID_INPUT' ? 'The address is not valid.' : undefined));
    },
  });
  const allowedOrigins = [new URL(config.publicUrl).origin];
  const crossSite = csrfCheck(allowedOrigins);
  const addressBudget = createAddressBudget(config.RATE_LIMIT_FACTOR);
  const handedHere = new Set<string>();
  // What every request goes through, in one hook: each hook costs every request its own run, and the polled
  // endpoint (`/v1/user/servers`, every 5 s from every signed-in tab) is mostly hooks and headers: every
  // answer's headers, then cross-site writes (csrf.ts) and the per-address budget of API requests.
  app.addHook('onRequest', (request, reply, done) => {
    everyAnswer(request, reply);
    const refused = crossSite(request);
    if (refused) return done(refused);
    const handed = request.headers[HANDED_HEADER];
    if (typeof handed === 'string' && handedHere.has(handed)) return done();
    if (request.url.startsWith('/v1/') && !addressBudget.allow(request.ip)) return done(new ApiError('RATE_LIMIT'));
    done();
  });
  app.addHook('onClose', (_app, done) => {
    addressBudget.close();
    done();
  });
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  return { app, metrics, site, allowedOrigins, handedHere, routes };
}
