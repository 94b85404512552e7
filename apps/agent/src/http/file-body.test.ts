import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestedPart, sendFileBody, type ReadableFile } from './file-body.ts';

const MiB = 1024 * 1024;
const work = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-file-body-'));
const big = path.join(work, 'big.bin');
const SIZE = 64 * MiB;

/** One download as the server saw it: how often the file was read, whether it was closed, when it ended. */
interface Seen {
  reads: number;
  closed: boolean;
  done: Promise<void>;
  /** The connection of this request closed (as the server saw it). */
  connectionClosed: Promise<void>;
}

let app: FastifyInstance;
let port = 0;
const seen: Seen[] = [];
let gate: Promise<void> = Promise.resolve();
const STALL_MS = 400;

async function counted(): Promise<{ file: ReadableFile; seen: Omit<Seen, 'done' | 'connectionClosed'> }> {
  const handle = await open(big, 'r');
  const record = { reads: 0, closed: false };
  return {
    seen: record,
    file: {
      read: (buffer, offset, length, position) => {
        record.reads++;
        return handle.read(buffer, offset, length, position);
      },
      close: async () => {
        record.closed = true;
        await handle.close();
      },
    },
  };
}

beforeAll(async () => {
  writeFileSync(big, randomBytes(SIZE));
  app = Fastify();
  app.route({
    method: ['GET', 'HEAD'],
    url: '/big',
    handler: async (request, reply) => {
      let finish = () => undefined as void;
      const entry = {
        reads: 0,
        closed: false,
        done: new Promise<void>((resolve) => (finish = resolve)),
        connectionClosed: new Promise<void>((resolve) => request.raw.socket.once('close', () => resolve())),
      } as Seen;
      seen.push(entry);
      // As the routes do: checks that take a while (the link, opening the file) before the first byte.
      await gate;
      const { file, seen: counts } = await counted();
      try {
        await sendFileBody(reply, { handle: file, size: SIZE, ino: 1, ctimeMs: 0 }, STALL_MS);
      } finally {
        Object.assign(entry, counts);
        finish();
      }
      return reply;
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await app.close();
  rmSync(work, { recursive: true, force: true });
});

const request = (method = 'GET') => `${method} /big HTTP/1.1\r\nHost: x\r\n\r\n`;
function client(): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
  });
}

describe('sendFileBody', () => {
  it('reads nothing for a browser that left before the file was opened, and closes the file', async () => {
    let release = () => undefined as void;
    gate = new Promise((resolve) => (release = resolve));
    const socket = await client();
    const before = seen.length;
    socket.write(request());
    await expect.poll(() => seen.length).toBe(before + 1);
    const download = seen[before] as Seen;
    socket.destroy();
    await download.connectionClosed;
    release();
    await download.done;
    expect(download.reads).toBe(0);
    expect(download.closed).toBe(true);
  });

  it('cuts off a reader that stopped reading, and stops reading the file', async () => {
    gate = Promise.resolve();
    const socket = await client();
    const before = seen.length;
    socket.pause();
    socket.write(request());
    await expect.poll(() => seen.length).toBe(before + 1);
    const download = seen[before] as Seen;
    // The node hangs up (the paused client cannot tell yet) and is done with the file.
    await download.connectionClosed;
    await download.done;
    expect(download.closed).toBe(true);
    // What the kernel's buffers took before the reader stopped, not the file's 64 chunks.
    expect(download.reads).toBeLessThan(SIZE / MiB);
    socket.destroy();
  });

  it('answers HEAD with the headers and reads nothing', async () => {
    gate = Promise.resolve();
    const socket = await client();
    const before = seen.length;
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(request('HEAD'));
    await expect.poll(() => Buffer.concat(chunks).includes('\r\n\r\n')).toBe(true);
    const download = seen[before] as Seen;
    await download.done;
    expect(Buffer.concat(chunks).toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*content-length: 67108864\r\n/i);
    expect(download.reads).toBe(0);
    expect(download.closed).toBe(true);
    socket.destroy();
  });

  it('ends a pipelined request waiting behind another when the connection closes', async () => {
    gate = Promise.resolve();
    const socket = await client();
    const before = seen.length;
    socket.pause();
    socket.write(request() + request());
    await expect.poll(() => seen.length).toBe(before + 2);
    socket.destroy();
    const [first, second] = seen.slice(before) as [Seen, Seen];
    await Promise.all([first.done, second.done]);
    expect(first.closed).toBe(true);
    expect(second.closed).toBe(true);
    expect(second.reads).toBeLessThan(SIZE / MiB);
  });
});

describe('requestedPart', () => {
  const tag = '"a-b-c"';
  const ask = (range: string | undefined, options: { size?: number; method?: string; ifRange?: string } = {}) =>
    requestedPart(options.method ?? 'GET', { range, 'if-range': options.ifRange }, options.size ?? 10, tag);

  it('sends one range as a browser resuming, or a player of the file, asks for it', () => {
    expect(ask('bytes=4-')).toEqual({ status: 206, start: 4, end: 10 });
    expect(ask('bytes=4-', { ifRange: tag })).toEqual({ status: 206, start: 4, end: 10 });
    expect(ask('bytes=2-4')).toEqual({ status: 206, start: 2, end: 5 });
    expect(ask('bytes=2-400')).toEqual({ status: 206, start: 2, end: 10 });
    expect(ask('BYTES = 2-4'.replace(' = ', '='))).toEqual({ status: 206, start: 2, end: 5 });
    // The last 3 bytes; the last 20 of a 10-byte file are all of it.
    expect(ask('bytes=-3')).toEqual({ status: 206, start: 7, end: 10 });
    expect(ask('bytes=-20')).toEqual({ status: 206, start: 0, end: 10 });
  });

  it('sends the whole file for anything else, which is always a correct answer', () => {
    for (const range of [
      undefined,
      'bytes=0-1,5-6', // several ranges: no multipart body
      'items=0-5',
      'items=500-', // another unit, even "past the end"
      'bytes=4-2', // end before start
      'bytes=-',
      'bytes=abc',
      'bytes=1-2-3',
      `bytes=${'9'.repeat(400)}-`,
      'bytes=0x10-',
    ])
      expect(ask(range), String(range)).toEqual({ status: 200 });
    // An older version's tag, a weak tag or a date: the file may have changed, so all of it.
    for (const ifRange of ['"other"', `W/${tag}`, 'Fri, 27 Nov 2026 11:00:00 GMT'])
      expect(ask('bytes=4-', { ifRange }), ifRange).toEqual({ status: 200 });
    // Only a GET gets a part (a HEAD ignores Range), and an empty file has no part to send.
    expect(ask('bytes=4-', { method: 'HEAD' })).toEqual({ status: 200 });
    expect(ask('bytes=0-', { size: 0 })).toEqual({ status: 200 });
    expect(ask('bytes=-5', { size: 0 })).toEqual({ status: 200 });
  });

  it('refuses only a valid range that starts at or past the end, or an empty suffix', () => {
    expect(ask('bytes=10-')).toEqual({ status: 416 });
    expect(ask('bytes=12-20')).toEqual({ status: 416 });
    expect(ask('bytes=-0')).toEqual({ status: 416 });
  });
});
