import {
  answerClientError,
  bearerIs,
  httpMetrics,
  loggerOptions,
  requestIdOf,
  requestLogController,
  type LogFormat,
  type LogLevel,
} from '@spawnpoint/logging';
import Fastify, { type FastifyReply } from 'fastify';
import { z } from 'zod';
import { SandboxError } from '../files/sandbox.ts';
import { InvalidStateError } from '../server/managed-server.ts';
import { BROWSER_HEADERS } from './agent-route.ts';
import { sendSandboxError } from './server-files.ts';

/** What the node's HTTP side needs: how to log, who it is, and the tokens it takes. */
export interface AgentHttpSettings {
  logLevel: LogLevel;
  logFormat: LogFormat;
  nodeId: string;
  agentToken: string;
  /** The scraper's own token; none, no metrics page. */
  metricsToken: string | undefined;
}

export function fail(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.status(status).send({ status: code, message });
}

/**
 * The node's HTTP server before its routes: every request counted, the node's token asked of every route but
 * signed links and the metrics page, and every error answered in the envelope (never Fastify's own body).
 */
export function agentHttp(settings: AgentHttpSettings) {
  // Every request is counted as it finishes (the request-log controller tells the metrics).
  const metrics = httpMetrics('spawnpoint_agent_');
  // A refusal before a route's own checks is what a browser that wanders onto the node's port (where download
  // links point) meets: it carries the browser headers, like the links' own answers.
  const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
    fail(reply.headers(BROWSER_HEADERS), status, code, message);
  const http = Fastify({
    logger: loggerOptions({ level: settings.logLevel, format: settings.logFormat, name: `agent ${settings.nodeId}` }),
    logController: requestLogController(settings.logLevel, metrics.record),
    // The API's request id, so one id ties its log lines of a call to this node's.
    genReqId: requestIdOf,
    clientErrorHandler: answerClientError,
    bodyLimit: 64 * 1024,
    // A path the router cannot read (broken %-escapes) or with a part longer than any id: a browser may send
    // one to the download port, so it is answered in the envelope with the browser headers, not with
    // Fastify's own body echoing the path.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      if (error.code === 'FST_ERR_BAD_URL') void refuse(reply, 400, 'INVALID_INPUT', 'The address is not valid.');
      else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') void refuse(reply, 404, 'NOT_FOUND', 'Not found.');
      else {
        request.log.error({ err: error }, 'request errored before routing');
        void refuse(reply, 500, 'INTERNAL_ERROR', 'The node could not do that.');
      }
    },
  });
  http.addHook('onRequest', async (request, reply) => {
    // A signed link is checked by its own route (signature, expiry, purpose, server, path).
    if (request.routeOptions.config.signedLink) return;
    if (request.routeOptions.config.metricsPage) {
      if (!settings.metricsToken) return refuse(reply, 404, 'NOT_FOUND', 'Not found.');
      if (!bearerIs(request.headers.authorization, settings.metricsToken))
        return refuse(reply, 401, 'NOT_AUTHENTICATED', 'Bad metrics token.');
      return;
    }
    if (!bearerIs(request.headers.authorization, settings.agentToken)) return refuse(reply, 401, 'NOT_AUTHENTICATED', 'Bad node token.');
  });
  http.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    if (error instanceof SandboxError) return sendSandboxError(reply, error);
    if (error instanceof z.ZodError) return fail(reply, 400, 'INVALID_INPUT', error.issues[0]?.message ?? 'Invalid input.');
    if (error instanceof InvalidStateError) return fail(reply, 409, 'INVALID_STATE', error.message);
    if (error.statusCode && error.statusCode < 500) return fail(reply, 400, 'INVALID_INPUT', 'Invalid input.');
    http.log.error({ err: error }, 'agent error');
    return fail(reply, 500, 'INTERNAL_ERROR', 'The node could not do that.');
  });
  return { http, metrics };
}
