import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Bytes read and written at a time. */
const CHUNK = 1024 * 1024;
/** Chunks one download may have handed to its socket and not yet seen sent, while it reads the next. */
const IN_FLIGHT = 3;
/**
 * Chunks all downloads together may have in flight beyond their first: past it, each download keeps one
 * chunk in flight (still correct, only slower), so many downloads at once — or many that stalled — cost
 * about 1 MiB each rather than three.
 */
const EXTRA_IN_FLIGHT_MAX = 32;
/** Sent chunks kept for the next reads (of any download). */
const POOL_MAX = 16;
/** A download whose socket takes nothing for this long is cut off (a reader that stopped reading). */
export const DOWNLOAD_STALL_MS = 60_000;

const pool: Buffer[] = [];
let extraInFlight = 0;
/** A buffer no write holds any more, kept for the next read while the pool has room. */
const giveBack = (buffer: Buffer) => {
  if (pool.length < POOL_MAX) pool.push(buffer);
};

/** What is read: a FileHandle (tests count the reads through a wrapper). */
export interface ReadableFile {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/**
 * Sends an open file as the whole answer (status 200, the reply's headers, then exactly `size` bytes) and
 * closes it. Downloads of large files and backups go this way instead of `reply.send(readStream)`: a read
 * stream piped into the answer reads its next chunk only once the last one has drained, and each 1 MiB
 * chunk is new memory the kernel must fault in. Here reading overlaps sending (up to three chunks in
 * flight) and a chunk's buffer is reused once the socket has taken its bytes: about 1.5–1.9 × the read
 * stream's speed to curl on this machine (docs/performance.md, "Uploads and downloads").
 *
 * Only what was read into a buffer this time is ever sent (`subarray(0, bytesRead)`), and a buffer goes back
 * to the pool only once its write is done, so a reused buffer's earlier bytes — another file, maybe another
 * tenant's — cannot leak. `size` is the size seen when the file was opened: a file that grows meanwhile is
 * cut there; one that shrinks cannot give the bytes promised in Content-Length, so the connection is
 * destroyed and the browser reports a failed download. A browser that went away (before or during the
 * sending), or that stops reading for DOWNLOAD_STALL_MS, ends the reading at once and the file is closed.
 */
export async function sendFileBody(reply: FastifyReply, file: ReadableFile, size: number, stallMs = DOWNLOAD_STALL_MS): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  // The connection, not only this answer: a pipelined request's answer waits for the one before it and
  // hears nothing of a connection closed meanwhile.
  const socket = reply.request.raw.socket;
  let closed = res.destroyed || socket.destroyed;
  let inFlight = 0;
  let extras = 0;
  let settled = false;
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  const onClose = () => {
    closed = true;
    wakeUp();
  };
  res.once('close', onClose);
  socket.once('close', onClose);
  const stall = setTimeout(() => res.destroy(new Error('The download stalled: its reader took nothing.')), stallMs);
  try {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
    if (closed) return;
    res.writeHead(200, headers);
    if (reply.request.method === 'HEAD') return void res.end();
    let position = 0;
    while (position < size && !closed) {
      const mayAddOne = inFlight === 0 || (inFlight < IN_FLIGHT && extraInFlight < EXTRA_IN_FLIGHT_MAX);
      if (!mayAddOne) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      const extra = inFlight > 0;
      const buffer = pool.pop() ?? Buffer.allocUnsafeSlow(CHUNK);
      const { bytesRead } = await file.read(buffer, 0, Math.min(CHUNK, size - position), position);
      if (bytesRead === 0) {
        giveBack(buffer);
        throw new Error('The file became shorter while it was being sent.');
      }
      if (closed) {
        giveBack(buffer);
        break;
      }
      position += bytesRead;
      inFlight++;
      if (extra) {
        extras++;
        extraInFlight++;
      }
      res.write(buffer.subarray(0, bytesRead), () => {
        // Taken by the kernel (or the write failed and the socket is gone): free to be read into again.
        inFlight--;
        if (extra && !settled) {
          extras--;
          extraInFlight--;
        }
        giveBack(buffer);
        stall.refresh();
        wakeUp();
      });
    }
    // Done once the last bytes are sent (every write's callback has come) or the connection is gone.
    if (!closed) await new Promise<void>((resolve) => (res.end(resolve), res.once('close', resolve)));
  } catch (err) {
    reply.log.warn({ err }, 'a download was cut short');
    res.destroy(err as Error);
  } finally {
    clearTimeout(stall);
    res.off('close', onClose);
    socket.off('close', onClose);
    // Writes whose callbacks will never come (the socket was destroyed first) give their share back here.
    settled = true;
    extraInFlight -= extras;
    await file.close();
  }
}
