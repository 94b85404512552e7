/*
 * One HTTP call of a node's agent and what its answer means: the transport under NodeRegistry (nodes.ts).
 */
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { finished, Readable, Transform } from 'node:stream';
import type { AgentEndpoint } from '@spawnpoint/contracts';
import { REQUEST_ID_HEADER } from '@spawnpoint/logging';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { ApiError } from './http/errors.ts';

export type JsonAgentEndpoint = AgentEndpoint & { result: z.ZodType };

const agentAnswer = z.object({ status: z.string(), message: z.string().optional(), result: z.unknown().optional() });
export type AgentAnswer = z.infer<typeof agentAnswer>;

export const UPLOAD_INCOMPLETE = 'The upload did not complete. Please try again.';

/**
 * The agent closed the connection while a body was still being sent to it, and whatever it answered was
 * lost with the connection (it closes at once after refusing midway, and a write that meets the closed
 * connection ends the exchange before the answer is read). Answered as NODE_UNAVAILABLE unless the caller
 * can tell why (an upload asks whether the file could have fitted).
 */
export class AgentCutOff extends ApiError {
  constructor(readonly sentBytes: number) {
    super('NODE_UNAVAILABLE');
  }
}

/** One exchange: the node called (its URL and token), the request, and the id of the API request that made it. */
export interface Exchange {
  nodeId: string;
  node: { url: string; token: string };
  requestId: string | undefined;
  method: string;
  path: string;
  body?: Buffer | Readable;
  contentType?: string;
  timeoutMs?: number;
  log: FastifyBaseLogger;
}

/**
 * One HTTP exchange with a node's agent, settled as soon as the agent's answer begins, even while `body`
 * is still being sent (an agent refuses an upload midway and closes the connection; its answer is what
 * counts). Who failed decides the code: the node is not connected, or the connection to it fails or
 * times out → NODE_UNAVAILABLE; `body` fails or ends early (the user's upload was cut off) → INVALID_INPUT,
 * and the agent's request is aborted so it keeps nothing; the agent closes the connection while the body
 * is being sent and its answer is lost with it → AgentCutOff.
 */
export function exchange(x: Exchange): Promise<IncomingMessage> {
  const { nodeId, path, body, contentType, timeoutMs } = x;
  const url = new URL(path, x.node.url);
  const headers: OutgoingHttpHeaders = { authorization: `Bearer ${x.node.token}` };
  // The agent logs the call under the id of the request that made it (none from timers).
  if (x.requestId) headers[REQUEST_ID_HEADER] = x.requestId;
  if (body !== undefined) headers['content-type'] = contentType ?? 'application/octet-stream';
  if (Buffer.isBuffer(body)) headers['content-length'] = body.length;
  return new Promise<IncomingMessage>((resolve, reject) => {
    let settled = false;
    let connected = false;
    let sentBytes = 0;
    let paced: Transform | null = null;
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: x.method,
      headers,
      ...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
    request.on('error', (err) => {
      // After the answer began, a reset (the agent closing after an early refusal) is no news.
      if (settled) return;
      settled = true;
      const code = (err as NodeJS.ErrnoException).code;
      if (connected && sentBytes > 0 && (code === 'EPIPE' || code === 'ECONNRESET')) {
        x.log.warn({ err, nodeId, path, sentBytes }, 'agent closed the connection while the body was being sent');
        return reject(new AgentCutOff(sentBytes));
      }
      x.log.error({ err, nodeId, path }, 'agent unreachable');
      reject(new ApiError('NODE_UNAVAILABLE'));
    });
    request.on('response', (response) => {
      if (settled) return void response.destroy();
      settled = true;
      if (body instanceof Readable && paced && !request.writableEnded) {
        // An early answer: the agent stopped reading, so stop sending; this connection is done.
        body.unpipe(paced);
        paced.unpipe(request);
        response.once('end', () => request.destroy());
      }
      resolve(response);
    });
    request.once('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => (connected = true));
      else connected = true;
    });
    if (!(body instanceof Readable)) {
      sentBytes = body?.length ?? 0;
      return void request.end(body);
    }
    finished(body, (err) => {
      if (!err || settled) return;
      settled = true;
      request.destroy();
      reject(new ApiError('INVALID_INPUT', undefined, UPLOAD_INCOMPLETE));
    });
    // Each piece goes out after the event loop has polled the connection, so an agent that has answered
    // (and is about to close) is heard before the next write runs into the closed connection.
    paced = new Transform({
      transform: (chunk: Buffer, _encoding, done) =>
        void setImmediate(() => {
          sentBytes += chunk.length;
          done(null, chunk);
        }),
    });
    body.pipe(paced).pipe(request);
  });
}

/**
 * The agent's JSON answer. The connection dropping while it is read → NODE_UNAVAILABLE (502); a complete
 * answer that is not the agent protocol (a bug or a version mismatch, never the user's doing) is logged
 * with what came and answered INTERNAL_ERROR (500).
 */
export async function answerOf(log: FastifyBaseLogger, nodeId: string, path: string, response: IncomingMessage): Promise<AgentAnswer> {
  const text = (await collect(log, nodeId, response)).toString('utf8');
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    // reported below with the text itself
  }
  const answer = agentAnswer.safeParse(parsed);
  if (answer.success) return answer.data;
  log.error({ nodeId, path, httpStatus: response.statusCode, body: text.slice(0, 500) }, 'malformed agent answer');
  throw new ApiError('INTERNAL_ERROR');
}

/** Reads a body the agent is sending (a download being buffered); a connection lost midway → NODE_UNAVAILABLE. */
export async function collect(log: FastifyBaseLogger, nodeId: string, body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of body) chunks.push(chunk as Buffer);
  } catch (err) {
    log.error({ err, nodeId }, 'agent connection lost during its answer');
    throw new ApiError('NODE_UNAVAILABLE');
  }
  return Buffer.concat(chunks);
}

export function resultOf<E extends JsonAgentEndpoint>(
  log: FastifyBaseLogger,
  nodeId: string,
  path: string,
  endpoint: E,
  answer: AgentAnswer,
): z.infer<E['result']> {
  if (answer.status !== 'SUCCESS') refusal(log, nodeId, path, answer);
  const result = endpoint.result.safeParse(answer.result);
  // The data came out of this entry's own result schema; TypeScript cannot follow it through the generic.
  if (result.success) return result.data as z.infer<E['result']>;
  log.error({ nodeId, path, issues: result.error.issues.slice(0, 5) }, 'malformed agent answer: unexpected result');
  throw new ApiError('INTERNAL_ERROR');
}

/** The agent's refusal as the matching catalogue code; anything else it refuses with is logged, INTERNAL_ERROR. */
export function refusal(log: FastifyBaseLogger, nodeId: string, path: string, answer: AgentAnswer): never {
  const { status, message } = answer;
  if (status === 'INVALID_STATE' || status === 'INVALID_INPUT' || status === 'NOT_FOUND' || status === 'DISK_LIMIT') {
    throw new ApiError(status, undefined, message);
  }
  log.error({ nodeId, path, answer }, 'agent refused');
  throw new ApiError('INTERNAL_ERROR');
}
