import { PassThrough, Readable } from 'node:stream';
import { SandboxError } from '../files/sandbox.ts';

/** How long a refused upload's remaining body is read and discarded before the connection is cut. */
const DISCARD_MS = 30_000;

/**
 * Hands an upload's body to `work` through a bridge. A refusal midway (DISK_LIMIT, a file that is no
 * plugin) must not destroy the request: that would close the socket with unread data, the kernel would
 * answer with a reset, and the control plane would lose our answer. The rest is read and discarded
 * instead (the control plane stops sending when it sees the answer), bounded in time. A client that goes
 * away midway ends the work with INVALID_INPUT (`pipe` alone would leave it waiting forever).
 */
export async function withUploadBody<T>(incoming: unknown, work: (body: Readable) => Promise<T>): Promise<T> {
  // Only a body typed application/octet-stream reaches here as a stream; another type was parsed (or refused)
  // by Fastify, and there is no file in it.
  if (!(incoming instanceof Readable))
    throw new SandboxError('INVALID_INPUT', 'Send the file itself as the body, typed application/octet-stream.');
  const bridge = new PassThrough();
  // The work may not be reading yet when the client goes away (it is still checking the link, opening the
  // folder): the error waits in the bridge for the work's next read instead of being thrown as uncaught.
  bridge.on('error', () => undefined);
  incoming.pipe(bridge);
  incoming.once('close', () => {
    if (!incoming.readableEnded) bridge.destroy(new SandboxError('INVALID_INPUT', 'The upload was cut off before it ended.'));
  });
  try {
    return await work(bridge);
  } catch (err) {
    incoming.unpipe(bridge);
    bridge.destroy();
    if (!incoming.readableEnded) {
      incoming.resume();
      const cut = setTimeout(() => incoming.destroy(), DISCARD_MS).unref();
      incoming.once('close', () => clearTimeout(cut));
    }
    throw err;
  }
}
