import { PassThrough, type Readable } from 'node:stream';
import { SandboxError } from './sandbox.ts';

/** How long a refused upload's remaining body is read and discarded before the connection is cut. */
const DISCARD_MS = 30_000;

/**
 * Hands an upload's body to `work` through a bridge. A refusal midway (DISK_LIMIT, a file that is no
 * plugin) must not destroy the request: that would close the socket with unread data, the kernel would
 * answer with a reset, and the control plane would lose our answer. The rest is read and discarded
 * instead (the control plane stops sending when it sees the answer), bounded in time. A client that goes
 * away midway ends the work with INVALID_INPUT (`pipe` alone would leave it waiting forever).
 */
export async function withUploadBody<T>(incoming: Readable, work: (body: Readable) => Promise<T>): Promise<T> {
  const bridge = new PassThrough();
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
