import type { AgentEndpoint } from '@spawnpoint/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route a browser reaches through a signed link: checked by its signature, not the node token. */
    signedLink?: boolean;
    /** The metrics page: checked against METRICS_TOKEN, not the node token. */
    metricsPage?: boolean;
  }
}

type Parsed<E, K extends 'params' | 'query' | 'body'> = E extends { [P in K]: infer S extends z.ZodType } ? z.infer<S> : undefined;

/** What an agent handler gets: the request parts already parsed with the entry's schemas. */
export interface AgentCall<E extends AgentEndpoint> {
  request: FastifyRequest;
  reply: FastifyReply;
  params: Parsed<E, 'params'>;
  query: Parsed<E, 'query'>;
  body: Parsed<E, 'body'>;
}

export type AgentResult<E extends AgentEndpoint> = E extends { raw: true }
  ? FastifyReply
  : E extends { result: infer R extends z.ZodType }
    ? z.infer<R>
    : null;

export type AgentRoute = <E extends AgentEndpoint>(endpoint: E, handler: (call: AgentCall<E>) => Promise<AgentResult<E>>) => void;

/**
 * What every answer to a browser carries (a signed download, or its refusal): never cached or sniffed,
 * never framed or run as a page, the link (which carries its signature) never sent on as a referrer.
 */
export const BROWSER_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * What a browser needs to send a file to a signed upload link from the dashboard's page (another origin):
 * any origin, as the link itself is the credential (no cookie is sent or read), only `PUT` of a body
 * typed `application/octet-stream`. The preflight's answer is kept by the browser for ten minutes.
 */
export const UPLOAD_CORS_HEADERS = { 'access-control-allow-origin': '*' };
/**
 * A browser's upload that sends nothing for this long is cut off (and the node keeps nothing of it): a link
 * works for a minute and may be used more than once, so stalled uploads must not hold a temporary file, the
 * quota they were charged and a connection for ever. Node's server sets no such limit itself.
 */
export const UPLOAD_IDLE_MS = 60_000;
const UPLOAD_PREFLIGHT_HEADERS = {
  ...UPLOAD_CORS_HEADERS,
  'access-control-allow-methods': 'PUT',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '600',
};

/**
 * Registers the agent's routes from the agent protocol table in contracts (`agentEndpoints`): params,
 * query and a JSON body are parsed with the entry's schemas (a ZodError is answered INVALID_INPUT by
 * the agent's error handler), and the result goes out in the SUCCESS envelope. A `streamed` entry's body
 * reaches the handler as the raw stream. A `signed` entry is exempt from the node token (the agent's
 * `onRequest` hook reads `signedLink` from the route's config) and answers with browser headers; a signed
 * upload also answers its browser's CORS preflight, and lets the page read its answer.
 */
export function agentRouter(http: FastifyInstance): AgentRoute {
  return (endpoint, handler) => {
    const upload = endpoint.signed === true && endpoint.method !== 'GET';
    if (upload)
      http.route({
        method: 'OPTIONS',
        url: endpoint.path,
        config: { signedLink: true },
        handler: async (_request, reply) => reply.headers(BROWSER_HEADERS).headers(UPLOAD_PREFLIGHT_HEADERS).status(204).send(),
      });
    http.route({
      method: endpoint.method,
      url: endpoint.path,
      config: { signedLink: endpoint.signed === true, metricsPage: endpoint.metrics === true },
      ...(endpoint.signed
        ? {
            onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
              reply.headers(BROWSER_HEADERS);
              if (!upload) return;
              reply.headers(UPLOAD_CORS_HEADERS);
              request.raw.setTimeout(UPLOAD_IDLE_MS, () => request.raw.destroy());
            },
          }
        : {}),
      handler: async (request, reply) => {
        const params: unknown = endpoint.params ? endpoint.params.parse(request.params) : undefined;
        const query: unknown = endpoint.query ? endpoint.query.parse(request.query) : undefined;
        const body: unknown = endpoint.body ? endpoint.body.parse(request.body ?? {}) : undefined;
        // Each part came out of the entry's own schema; TypeScript cannot follow that through the generic entry.
        const result: unknown = await handler({ request, reply, params, query, body } as AgentCall<typeof endpoint>);
        return endpoint.raw ? result : { status: 'SUCCESS', result };
      },
    });
  };
}
