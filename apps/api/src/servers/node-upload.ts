import type { Readable } from 'node:stream';
import { agentEndpoints, type AgentEndpoint } from '@spawnpoint/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError } from '../http/errors.ts';
import { AgentCutOff, UPLOAD_INCOMPLETE, type AgentInput, type JsonAgentEndpoint, type NodeRegistry } from '../nodes.ts';

/**
 * Sends an upload to a server's node. When the node cut the body short and its answer was lost with the
 * connection, the one refusal it makes midway is the disk limit: ask it whether the file could have fitted.
 */
export async function uploadToNode<E extends JsonAgentEndpoint & AgentEndpoint & { streamed: true }>(
  nodes: NodeRegistry,
  server: { id: string; nodeId: string },
  endpoint: E,
  input: AgentInput<E>,
  body: Buffer | Readable,
): Promise<z.infer<E['result']>> {
  try {
    return await nodes.send(server.nodeId, endpoint, input, body);
  } catch (err) {
    if (!(err instanceof AgentCutOff)) throw err;
    const usage = await nodes.call(server.nodeId, agentEndpoints.diskUsage, { params: { serverId: server.id } }).catch(() => null);
    if (usage && usage.used + err.sentBytes > usage.quota)
      throw new ApiError('DISK_LIMIT', undefined, "The file does not fit in this server's disk. Delete files or upgrade the plan.");
    throw err;
  }
}

/**
 * The one file of a multipart upload, streamed to `use` as it arrives: memory does not grow with size.
 * Refused before the whole form was read (DISK_LIMIT midway, a file that is no plugin), the rest is not
 * wanted and the connection cannot carry another request, so the client stops sending and reads the answer.
 */
export async function withMultipartFile<T>(request: FastifyRequest, reply: FastifyReply, use: (file: Readable) => Promise<T>): Promise<T> {
  const file = await request.file({ limits: { files: 1, fileSize: 1024 * 1024 * 1024 * 1024 } }).catch((err: unknown) => {
    // The multipart parser fails only on what the client sent (cut off, malformed); its own 4xx say what.
    const status = (err as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) throw err;
    throw new ApiError('INVALID_INPUT', undefined, UPLOAD_INCOMPLETE);
  });
  if (!file) throw new ApiError('INVALID_INPUT', { file: 'Choose a file to upload.' });
  try {
    return await use(file.file);
  } catch (err) {
    if (!file.file.readableEnded) reply.header('connection', 'close');
    throw err;
  }
}
