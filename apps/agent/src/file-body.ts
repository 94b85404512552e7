import type { FileHandle } from 'node:fs/promises';
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Bytes read and written at a time. */
const CHUNK = 1024 * 1024;
/** Chunks handed to the socket and not yet sent while the next is read. */
const IN_FLIGHT = 3;
/** Sent chunks kept for the next reads (of any download), so memory stays bounded however many run. */
const POOL_MAX = 16;
const pool: Buffer[] = [];

/**
 * Sends an open file as the whole answer (status 200, the reply's headers, then exactly `size` bytes) and
 * closes it. Downloads of large files and backups go this way instead of `reply.send(readStream)`: a read
 * stream piped into the answer reads its next chunk only once the last one has drained, and each 1 MiB
 * chunk is new memory the kernel must fault in. Here reading overlaps sending (up to three chunks in
 * flight) and a chunk's buffer is reused once the socket has taken its bytes: about 1.5–1.9 × the read
 * stream's speed to curl on this machine (docs/performance.md, "Uploads and downloads").
 *
 * Only what was read into a buffer this time is ever sent (`subarray(0, bytesRead)`), so a reused buffer's
 * earlier bytes — another file, maybe another tenant's — cannot leak. `size` is the size seen when the file
 * was opened: a file that grows meanwhile is cut there; one that shrinks cannot give the bytes promised in
 * Content-Length, so the connection is destroyed and the browser reports a failed download. A browser that
 * goes away stops the reading at once and the file is closed.
 */
export async function sendFileBody(reply: FastifyReply, file: FileHandle, size: number): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  let closed = false;
  let inFlight = 0;
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  res.once('close', () => {
    closed = true;
    wakeUp();
  });
  try {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
    res.writeHead(200, headers);
    if (reply.request.method === 'HEAD') return void res.end();
    let position = 0;
    while (position < size && !closed) {
      if (inFlight >= IN_FLIGHT) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      const buffer = pool.pop() ?? Buffer.allocUnsafeSlow(CHUNK);
      const { bytesRead } = await file.read(buffer, 0, Math.min(CHUNK, size - position), position);
      if (bytesRead === 0) {
        pool.push(buffer);
        throw new Error('The file became shorter while it was being sent.');
      }
      position += bytesRead;
      inFlight++;
      res.write(buffer.subarray(0, bytesRead), () => {
        inFlight--;
        // Taken by the kernel (or the write failed and the socket is gone): free to be read into again.
        if (pool.length < POOL_MAX) pool.push(buffer);
        wakeUp();
      });
    }
    if (!closed) res.end();
  } catch (err) {
    reply.log.warn({ err }, 'a download was cut short');
    res.destroy(err as Error);
  } finally {
    await file.close();
  }
}
