import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
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

/** A file opened to be sent: what reads it, and its size, inode and status-change time when it was opened. */
export interface OpenedFile {
  handle: ReadableFile;
  size: number;
  ino: number;
  ctimeMs: number;
}

/**
 * The file's version as a strong entity tag: its size, inode and status-change time (ctime, to the
 * microsecond). Every write, rename or replacement moves the ctime, and unlike the modification time no
 * program can set it back (`utimes`, `touch -d`), so a tenant's game cannot make a rewritten file look
 * unchanged. A browser that resumes a download sends the tag back in If-Range and gets the rest only while
 * it still matches.
 */
export const fileTag = (file: Pick<OpenedFile, 'size' | 'ino' | 'ctimeMs'>) =>
  `"${[file.size, file.ino, Math.round(file.ctimeMs * 1000)].map((n) => n.toString(36)).join('-')}"`;

/** What a request asks of a file: all of it, one range of it (`end` exclusive), or a range it does not have. */
export type RequestedPart = { status: 200 } | { status: 206; start: number; end: number } | { status: 416 };

const ONE_RANGE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/**
 * Reads Range and If-Range (RFC 9110 §14) the way browsers resume downloads. One byte range of a GET is sent
 * as a 206: `N-` (the rest, what a resume asks), `N-M`, or `-N` (the last N bytes; all of a shorter file).
 * Everything else gets the whole file, which is always a correct answer: another method (a HEAD ignores
 * Range), several ranges (no `multipart/byteranges` body), another unit, a header that does not parse or
 * whose end comes before its start, an empty file, and an If-Range that is not this version's tag (a date,
 * a weak tag, an older version). Only a valid range that starts at or past the end, or the empty suffix
 * `-0`, gets 416. Written here rather than with `range-parser`, which answers "unsatisfiable" for several of
 * these (another unit past the end, a suffix longer than the file, an end before the start).
 */
export function requestedPart(method: string, headers: IncomingHttpHeaders, size: number, tag: string): RequestedPart {
  const range = headers.range;
  if (range === undefined || method !== 'GET' || size === 0) return { status: 200 };
  const ifRange = headers['if-range'];
  if (ifRange !== undefined && ifRange !== tag) return { status: 200 };
  const match = ONE_RANGE.exec(range);
  if (!match) return { status: 200 };
  const [first, last] = [match[1] ?? '', match[2] ?? ''];
  const [from, to] = [Number(first), Number(last)];
  if ((first === '' && last === '') || !Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return { status: 200 };
  if (first === '') return to === 0 ? { status: 416 } : { status: 206, start: Math.max(0, size - to), end: size };
  if (last !== '' && to < from) return { status: 200 };
  if (from >= size) return { status: 416 };
  return { status: 206, start: from, end: last === '' ? size : Math.min(to + 1, size) };
}

/** A range the file does not have: 416 in the envelope, never offered as the file. */
async function refuseRange(reply: FastifyReply, { handle: file, size }: OpenedFile): Promise<void> {
  // The name goes first: whatever happens next, this envelope is never offered as the file.
  reply.removeHeader('content-disposition');
  reply.removeHeader('content-length');
  try {
    await reply
      .status(416)
      .header('content-range', `bytes */${size}`)
      .type('application/json; charset=utf-8')
      .send({ status: 'INVALID_INPUT', message: 'This part of the file does not exist. Download it again from the dashboard.' });
  } finally {
    await file.close();
  }
}

/**
 * Sends an open file as the answer and closes it: the reply's headers plus the file's length, its tag and
 * `Accept-Ranges`, then exactly those bytes — the whole file (200), or the one range asked for (206, so a
 * browser can resume a download cut off midway: see `requestedPart`). A range past the end is refused in
 * the envelope (416) without the reply's file name, so no browser saves the refusal as the file.
 *
 * Downloads of large files and backups go this way instead of `reply.send(readStream)`: a read
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
export async function sendFileBody(reply: FastifyReply, opened: OpenedFile, stallMs = DOWNLOAD_STALL_MS): Promise<void> {
  const { handle: file, size } = opened;
  const tag = fileTag(opened);
  const part = requestedPart(reply.request.method, reply.request.headers, size, tag);
  reply.header('accept-ranges', 'bytes').header('etag', tag);
  if (part.status === 416) return refuseRange(reply, opened);
  const [start, end] = part.status === 206 ? [part.start, part.end] : [0, size];
  reply.header('content-length', end - start);
  if (part.status === 206) reply.header('content-range', `bytes ${start}-${end - 1}/${size}`);
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
    res.writeHead(part.status, headers);
    if (reply.request.method === 'HEAD') return void res.end();
    let position = start;
    while (position < end && !closed) {
      const mayAddOne = inFlight === 0 || (inFlight < IN_FLIGHT && extraInFlight < EXTRA_IN_FLIGHT_MAX);
      if (!mayAddOne) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      const extra = inFlight > 0;
      const buffer = pool.pop() ?? Buffer.allocUnsafeSlow(CHUNK);
      const { bytesRead } = await file.read(buffer, 0, Math.min(CHUNK, end - position), position);
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
