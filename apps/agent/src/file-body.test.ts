import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendFileBody, type ReadableFile } from './file-body.ts';

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
        await sendFileBody(reply, { handle: file, size: SIZE, modifiedMs: 0 }, STALL_MS);
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
