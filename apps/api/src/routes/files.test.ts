import { mkdtemp, readdir, rmdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DIRECTION_CONTROLS, directionControlsMessage, DOWNLOAD_LINK_SECONDS } from '@spawnpoint/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backups, serverMembers } from '../db/schema.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import {
  buildTestApp,
  multipart,
  ownerWithServer as newOwnerWithServer,
  requester,
  signedUp,
  uniqueIp,
  type Send,
} from '../test/build-test-app.ts';
import { until } from '../../../../test-support/until.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;
let apiUrl: string;

beforeAll(async () => {
  agent = await prepareAgent();
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  apiUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  agent.start(apiUrl);
  await until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
});
afterAll(async () => {
  await t.cleanup();
  await agent.stop();
});

const send: Send = (...args) => requester(t.app)(...args);
const ownerWithServer = () => newOwnerWithServer(t, 'files');

/**
 * A download as a browser makes it: the API answers a redirect to a link on the node, which is followed
 * without the session cookie (another origin) and serves the bytes.
 */
async function download(url: string, cookie: string) {
  const answer = await send('GET', url, cookie);
  expect(answer.statusCode, answer.body).toBe(302);
  expect(answer.headers['cache-control']).toBe('no-store');
  // The redirect says no-referrer, and the API's general referrer policy does not replace it.
  expect(answer.headers['referrer-policy']).toBe('no-referrer');
  const link = String(answer.headers.location);
  expect(link.startsWith(`${agent.nodeConfig.url}/v1/downloads/`)).toBe(true);
  const response = await fetch(link, { redirect: 'error' });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { link, status: response.status, headers: response.headers, bytes, text: bytes.toString('utf8') };
}

type EarlyAnswer = { status: number; connection: string | undefined; body: unknown; sentBytes: number };

/**
 * Uploads over a real connection the way a browser does with a large file: the form keeps coming in
 * 64 KiB pieces (up to `totalBytes`) until the API answers, which it may do before the body is complete.
 * When the API answers and closes while this client is still writing, Node's client can meet the closed
 * socket (EPIPE, a reset) before it has read the answer that is already there (a browser reads it): the
 * upload is then made again, at most three times in all.
 */
async function uploadUntilAnswered(id: string, cookie: string, name: string, totalBytes: number): Promise<EarlyAnswer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await uploadOnce(id, cookie, name, totalBytes);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (attempt >= 3 || (code !== 'EPIPE' && code !== 'ECONNRESET')) throw err;
    }
  }
}

function uploadOnce(id: string, cookie: string, name: string, totalBytes: number) {
  const form = multipart(name, Buffer.alloc(0));
  return new Promise<EarlyAnswer>((resolve, reject) => {
    const request = httpRequest(`${apiUrl}/v1/server/${id}/files/upload?path=/${name}`, {
      method: 'POST',
      headers: { cookie, ...form.headers },
    });
    let sent = 0;
    let answered = false;
    const piece = Buffer.alloc(64 * 1024, 7);
    const pump = () => {
      while (!answered && sent < totalBytes) {
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', pump);
      }
      if (!answered) request.end(form.payload.subarray(form.head.length));
    };
    request.on('response', (response: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          connection: response.headers.connection,
          body: JSON.parse(Buffer.concat(chunks).toString()),
          sentBytes: sent,
        }),
      );
      response.on('error', reject);
    });
    // Writing after the API has answered and closed is expected; only a missing answer fails the test.
    request.on('error', (err) => !answered && reject(err));
    request.write(form.head);
    pump();
  });
}

describe('files', () => {
  it('uploads (streamed multipart), lists, edits text and downloads', async () => {
    const { cookie, id } = await ownerWithServer();
    const data = Buffer.from('hello world\n'.repeat(1000));
    const upload = multipart('notes.txt', data);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/notes.txt`,
      headers: { cookie, ...upload.headers },
      payload: upload.payload,
      remoteAddress: uniqueIp(),
    });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    const list = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result;
    expect(list.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['notes.txt', 'server.properties']));

    const content = (await send('GET', `/v1/server/${id}/files/content?path=/notes.txt`, cookie)).json().result.content;
    expect(content).toBe(data.toString());
    expect((await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/notes.txt', content: 'edited' })).json().status).toBe(
      'SUCCESS',
    );
    const file = await download(`/v1/server/${id}/files/download?path=/notes.txt`, cookie);
    expect(file.text).toBe('edited');
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="notes.txt"');
  });

  it('refuses an upload without overwrite to a name that exists, and keeps that file as it was', async () => {
    const { cookie, id } = await ownerWithServer();
    const upload = (name: string, data: string, overwrite: 'true' | 'false') => {
      const form = multipart(name, Buffer.from(data));
      return t.app.inject({
        method: 'POST',
        url: `/v1/server/${id}/files/upload?path=/${name}&overwrite=${overwrite}`,
        headers: { cookie, ...form.headers },
        payload: form.payload,
        remoteAddress: uniqueIp(),
      });
    };
    expect((await upload('kept.txt', 'first', 'false')).json().status).toBe('SUCCESS');
    const refused = await upload('kept.txt', 'second', 'false');
    expect(refused.json().status).toBe('INVALID_STATE');
    expect(refused.json().message).toMatch(/exists/);
    expect((await send('GET', `/v1/server/${id}/files/content?path=/kept.txt`, cookie)).json().result.content).toBe('first');
    expect((await upload('kept.txt', 'third', 'true')).json().status).toBe('SUCCESS');
    expect((await send('GET', `/v1/server/${id}/files/content?path=/kept.txt`, cookie)).json().result.content).toBe('third');
  });

  it('saves an empty file from the editor', async () => {
    const { cookie, id } = await ownerWithServer();
    expect((await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/empty.txt', content: 'not yet' })).json().status).toBe(
      'SUCCESS',
    );
    const saved = await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/empty.txt', content: '' });
    expect(saved.json()).toEqual({ status: 'SUCCESS', result: null });
    expect((await send('GET', `/v1/server/${id}/files/content?path=/empty.txt`, cookie)).json().result.content).toBe('');
  });

  it('"New file" creates an empty file, and never empties one that exists', async () => {
    const { cookie, id } = await ownerWithServer();
    const created = await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/ops.json', content: '', overwrite: false });
    expect(created.json()).toEqual({ status: 'SUCCESS', result: null });
    const list = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result as { name: string; size: number }[];
    expect(list.find((e) => e.name === 'ops.json')).toMatchObject({ size: 0 });
    expect((await send('GET', `/v1/server/${id}/files/content?path=/ops.json`, cookie)).json().result.content).toBe('');

    const before = (await send('GET', `/v1/server/${id}/files/content?path=/server.properties`, cookie)).json().result.content;
    expect(before).toContain('motd=');
    const clash = await send('PUT', `/v1/server/${id}/files/content`, cookie, {
      path: '/server.properties',
      content: '',
      overwrite: false,
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toEqual({ status: 'INVALID_STATE', message: 'server.properties already exists.' });
    expect((await send('GET', `/v1/server/${id}/files/content?path=/server.properties`, cookie)).json().result.content).toBe(before);
  });

  it('makes folders with parents (mkdir -p) for uploads: existing ones are fine and what was made is counted', async () => {
    const { cookie, id } = await ownerWithServer();
    const mkdir = (body: unknown) => send('POST', `/v1/server/${id}/files/mkdir`, cookie, body);
    expect((await mkdir({ path: '/pack/data/deep', parents: true })).json()).toEqual({ status: 'SUCCESS', result: { created: 3 } });
    // An upload of a tree asks for every folder it needs, including ones that are already there.
    expect((await mkdir({ path: '/pack', parents: true })).json()).toEqual({ status: 'SUCCESS', result: { created: 0 } });
    expect((await mkdir({ path: '/pack/data/more', parents: true })).json()).toEqual({ status: 'SUCCESS', result: { created: 1 } });
    const names = (await send('GET', `/v1/server/${id}/files/list?path=/pack/data`, cookie))
      .json()
      .result.map((e: { name: string }) => e.name);
    expect(names).toEqual(['deep', 'more']);
    // "New folder" with a name in use still says so.
    expect((await mkdir({ path: '/pack' })).json()).toEqual({ status: 'INVALID_STATE', message: 'pack already exists.' });
    // A file in the way is refused, with parents or not.
    const through = await mkdir({ path: '/server.properties/x', parents: true });
    expect(through.statusCode).toBe(400);
    expect(through.json().status).toBe('INVALID_INPUT');
    // So is a link the game planted: mkdir -p never makes a folder where the link points.
    const outside = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-outside-'));
    await symlink(outside, path.join(agent.dataDir, 'servers', id, 'planted'));
    expect((await mkdir({ path: '/planted/evil', parents: true })).json().status).toBe('INVALID_INPUT');
    expect(await readdir(outside)).toEqual([]);
    await rmdir(outside);
  });

  it('names what is missing in the words of the form rules', async () => {
    const { cookie, id } = await ownerWithServer();
    await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/plugins' });
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/plugins/a.txt', content: 'a' });
    // The web app joined an empty name to the folder ("/plugins/"), which named the folder itself.
    for (const to of ['', '   ', '/plugins/']) {
      const res = await send('POST', `/v1/server/${id}/files/rename`, cookie, { from: '/plugins/a.txt', to });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 'INVALID_INPUT', fields: { to: 'The new name field is required' } });
    }
    expect((await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/plugins/ ' })).json().fields).toEqual({
      path: 'The folder name field is required',
    });
    expect((await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '', content: '' })).json().fields).toEqual({
      path: 'The file name field is required',
    });
    expect(
      (await send('GET', `/v1/server/${id}/files/list?path=/plugins`, cookie)).json().result.map((e: { name: string }) => e.name),
    ).toEqual(['a.txt']);
  });

  it('archives files inside a folder so that extracting there gives them back in that folder', async () => {
    const { cookie, id } = await ownerWithServer();
    const list = async (dir: string) =>
      (await send('GET', `/v1/server/${id}/files/list?path=${encodeURIComponent(dir)}`, cookie))
        .json()
        .result.map((e: { name: string }) => e.name);
    await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/plugins-data' });
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/plugins-data/one.yml', content: 'one: 1\n' });
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/plugins-data/two.yml', content: 'two: 2\n' });
    const archived = await send('POST', `/v1/server/${id}/files/archive`, cookie, {
      paths: ['/plugins-data/one.yml', '/plugins-data/two.yml'],
      destination: '/plugins-data/archive.tar.gz',
    });
    expect(archived.json().status).toBe('SUCCESS');
    await send('POST', `/v1/server/${id}/files/delete`, cookie, { paths: ['/plugins-data/one.yml', '/plugins-data/two.yml'] });

    const extracted = await send('POST', `/v1/server/${id}/files/extract`, cookie, {
      path: '/plugins-data/archive.tar.gz',
      destination: '/plugins-data',
    });
    expect(extracted.json()).toMatchObject({ status: 'SUCCESS', result: { files: 2, destination: '/plugins-data' } });
    // Back where they were, not in /plugins-data/plugins-data/.
    expect((await list('/plugins-data')).sort()).toEqual(['archive.tar.gz', 'one.yml', 'two.yml']);
    expect((await send('GET', `/v1/server/${id}/files/content?path=/plugins-data/two.yml`, cookie)).json().result.content).toBe('two: 2\n');

    // Without a destination (the file manager's Extract): a new folder named after the archive, so the owner's
    // edited two.yml is not overwritten; a second extraction gets a folder of its own.
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/plugins-data/two.yml', content: 'edited\n' });
    const extract = async () =>
      (await send('POST', `/v1/server/${id}/files/extract`, cookie, { path: '/plugins-data/archive.tar.gz' })).json().result.destination;
    expect(await extract()).toBe('/plugins-data/archive');
    expect(await extract()).toBe('/plugins-data/archive (2)');
    expect((await send('GET', `/v1/server/${id}/files/content?path=/plugins-data/two.yml`, cookie)).json().result.content).toBe('edited\n');
    expect((await list('/plugins-data/archive')).sort()).toEqual(['one.yml', 'two.yml']);
  });

  it('downloads a file with a non-ASCII name under its own name (RFC 6266 filename*), with an ASCII fallback', async () => {
    const { cookie, id } = await ownerWithServer();
    const name = 'Ñandú café "menu" 日本.txt';
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: `/${name}`, content: 'hola' });
    const res = await download(`/v1/server/${id}/files/download?path=${encodeURIComponent(`/${name}`)}`, cookie);
    expect(res.status).toBe(200);
    expect(res.text).toBe('hola');
    const header = String(res.headers.get('content-disposition'));
    const fallback = /filename="([^"]*)"/.exec(header)?.[1];
    const exact = /filename\*=UTF-8''([^;\s]+)/.exec(header)?.[1];
    // What a browser saves it as: the exact name from filename*, the fallback only for clients without it.
    expect(decodeURIComponent(exact ?? '')).toBe(name);
    expect(fallback).toBe('Nandu cafe _menu_ __.txt');
    expect(header).toMatch(/^attachment; /);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
  });

  it('answers a clear INVALID_INPUT for an upload cut off before its closing boundary, and keeps no partial file', async () => {
    const { cookie, id } = await ownerWithServer();
    const upload = multipart('cut.bin', Buffer.alloc(512 * 1024, 1));
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/cut.bin`,
      headers: { cookie, ...upload.headers },
      // The client went away halfway through the file: no closing boundary.
      payload: upload.payload.subarray(0, upload.head.length + 200 * 1024),
      remoteAddress: uniqueIp(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'INVALID_INPUT', message: 'The upload did not complete. Please try again.' });
    // Cut off even before the file's own headers were complete.
    const early = await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/cut.bin`,
      headers: { cookie, ...upload.headers },
      payload: upload.payload.subarray(0, 30),
      remoteAddress: uniqueIp(),
    });
    expect(early.statusCode).toBe(400);
    expect(early.json()).toEqual({ status: 'INVALID_INPUT', message: 'The upload did not complete. Please try again.' });
    const names = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result.map((e: { name: string }) => e.name);
    expect(names).not.toContain('cut.bin');
    expect(names.filter((n: string) => n.endsWith('.uploading'))).toEqual([]);
  });

  it('keeps nothing of an upload the browser cancels midway (the Cancel button), and leaves the file it would replace as it was', async () => {
    const { cookie, id } = await ownerWithServer();
    const folder = path.join(agent.dataDir, 'servers', id);
    await writeFile(path.join(folder, 'keep.txt'), 'the original');
    const leftovers = async () => (await readdir(folder)).filter((n) => n.startsWith('.spawnpoint-'));
    for (const name of ['new.bin', 'keep.txt']) {
      // As XMLHttpRequest.abort() does: the form is partly sent, then the connection closes.
      const form = multipart(name, Buffer.alloc(0));
      const request = httpRequest(`${apiUrl}/v1/server/${id}/files/upload?path=/${name}&size=${8 * 1024 * 1024}`, {
        method: 'POST',
        headers: { cookie, ...form.headers },
      });
      request.on('error', () => undefined);
      request.on('response', () => expect.fail('a cancelled upload has no answer to read'));
      request.write(form.head);
      request.write(Buffer.alloc(512 * 1024, 7));
      // The node has begun writing it (its temporary file is there) when the browser goes away.
      await until(leftovers, (names) => names.length > 0);
      request.destroy();
      await until(leftovers, (names) => names.length === 0);
    }
    const names = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result.map((e: { name: string }) => e.name);
    expect(names).not.toContain('new.bin');
    const kept = await send('GET', `/v1/server/${id}/files/content?path=/keep.txt`, cookie);
    expect(kept.json().result.content).toBe('the original');
    // The API and the node keep serving uploads after it.
    const after = multipart('after.txt', Buffer.from('fine'));
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/after.txt`,
      headers: { cookie, ...after.headers },
      payload: after.payload,
      remoteAddress: uniqueIp(),
    });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
  });

  it("answers the node's DISK_LIMIT when an upload crosses the quota midway, and keeps serving", async () => {
    const { cookie, id } = await ownerWithServer();
    // Fill the folder to 64 KiB under its quota with a sparse file (no real disk used), then measure again.
    const { quota } = (await send('GET', `/v1/server/${id}/files/usage`, cookie)).json().result;
    const filler = path.join(agent.dataDir, 'servers', id, 'filler.bin');
    await writeFile(filler, '');
    await truncate(filler, quota - 64 * 1024);
    expect((await send('GET', `/v1/server/${id}/files/usage`, cookie)).json().result.used).toBeGreaterThan(quota - 100 * 1024);

    // Through inject: the whole 32 MiB form is there, and the API is still sending it when the node refuses.
    const big = multipart('big.bin', Buffer.alloc(32 * 1024 * 1024, 1));
    const injected = await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/big.bin`,
      headers: { cookie, ...big.headers },
      payload: big.payload,
      remoteAddress: uniqueIp(),
    });
    expect(injected.statusCode).toBe(409);
    expect(injected.json().status).toBe('DISK_LIMIT');

    // Over a real connection: the answer arrives while the client is still uploading.
    const answered = await uploadUntilAnswered(id, cookie, 'bigger.bin', 256 * 1024 * 1024);
    expect(answered.status).toBe(409);
    expect(answered.body).toMatchObject({ status: 'DISK_LIMIT' });
    expect(answered.sentBytes).toBeLessThan(256 * 1024 * 1024);
    // The rest of the form is not wanted: the connection closes, so a browser stops sending and reads the answer.
    expect(answered.connection).toBe('close');

    const names = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result.map((e: { name: string }) => e.name);
    expect(names).not.toContain('big.bin');
    expect(names).not.toContain('bigger.bin');
  });

  it('refuses at once an upload whose declared size cannot fit, in words about the upload', async () => {
    const { cookie, id } = await ownerWithServer();
    const { quota } = (await send('GET', `/v1/server/${id}/files/usage`, cookie)).json().result;
    // Declares more than the whole disk; only a few bytes are in the form: the declared size is what is judged.
    const small = multipart('world.zip', Buffer.from('a few bytes'));
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/world.zip&size=${quota + 1}`,
      headers: { cookie, ...small.headers },
      payload: small.payload,
      remoteAddress: uniqueIp(),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().status).toBe('DISK_LIMIT');
    expect(res.json().message).toMatch(
      /^world\.zip \(2\.1 GB\) does not fit: this server has .* free of 2\.1 GB\. Delete files or upgrade the plan, then upload it again\.$/,
    );
    expect(res.json().message).not.toContain('will not start');
    const names = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result.map((e: { name: string }) => e.name);
    expect(names).not.toContain('world.zip');
    // A declared size that fits goes through.
    const fits = multipart('notes.txt', Buffer.from('a few bytes'));
    const accepted = await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/notes.txt&size=11`,
      headers: { cookie, ...fits.headers },
      payload: fits.payload,
      remoteAddress: uniqueIp(),
    });
    expect(accepted.json().status).toBe('SUCCESS');
    // The file must be the size declared: larger or smaller is refused and nothing is written.
    for (const [size, message] of [
      [3, 'The file is larger than the size the upload declared.'],
      [30, 'The file is smaller than the size the upload declared.'],
    ] as const) {
      const other = multipart('other.txt', Buffer.from('a few bytes'));
      const refused = await t.app.inject({
        method: 'POST',
        url: `/v1/server/${id}/files/upload?path=/other.txt&size=${size}`,
        headers: { cookie, ...other.headers },
        payload: other.payload,
        remoteAddress: uniqueIp(),
      });
      expect([refused.statusCode, refused.json().status, refused.json().message]).toEqual([400, 'INVALID_INPUT', message]);
    }
    const after = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result.map((e: { name: string }) => e.name);
    expect(after).not.toContain('other.txt');
  });

  it('refuses to open binary files in the editor and explains', async () => {
    const { cookie, id } = await ownerWithServer();
    const upload = multipart('level.dat', Buffer.from([1, 2, 0, 3]));
    await t.app.inject({
      method: 'POST',
      url: `/v1/server/${id}/files/upload?path=/level.dat`,
      headers: { cookie, ...upload.headers },
      payload: upload.payload,
      remoteAddress: uniqueIp(),
    });
    const res = await send('GET', `/v1/server/${id}/files/content?path=/level.dat`, cookie);
    expect(res.json()).toEqual({ status: 'INVALID_INPUT', message: 'This is not a text file. Download it instead.' });
  });

  it('maps sandbox refusals to the catalogue and never a 5xx', async () => {
    const { cookie, id } = await ownerWithServer();
    expect((await send('GET', `/v1/server/${id}/files/list?path=/../..`, cookie)).json().status).toBe('INVALID_INPUT');
    expect((await send('GET', `/v1/server/${id}/files/list?path=/nothing-here`, cookie)).json().status).toBe('NOT_FOUND');
    expect((await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/plugins' })).json().status).toBe('SUCCESS');
    expect((await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/plugins' })).json().status).toBe('INVALID_STATE');
    expect((await send('POST', `/v1/server/${id}/files/rename`, cookie, { from: '/plugins', to: '/mods' })).json().status).toBe('SUCCESS');
    expect((await send('POST', `/v1/server/${id}/files/delete`, cookie, { paths: ['/mods'] })).json().status).toBe('SUCCESS');
    expect((await send('GET', `/v1/server/${id}/files/search?q=properties`, cookie)).json().result).toEqual([
      expect.objectContaining({ path: '/server.properties' }),
    ]);
  });

  it('changes permission bits, shows them in the listing, and refuses modes out of range', async () => {
    const { cookie, id } = await ownerWithServer();
    const modeOf = async (name: string) =>
      ((await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result as { name: string; mode: number }[]).find(
        (e) => e.name === name,
      )?.mode;
    expect((await send('POST', `/v1/server/${id}/files/chmod`, cookie, { path: '/server.properties', mode: 0o600 })).json().status).toBe(
      'SUCCESS',
    );
    expect(await modeOf('server.properties')).toBe(0o600);
    expect((await send('POST', `/v1/server/${id}/files/chmod`, cookie, { path: '/server.properties', mode: 0o1777 })).json().status).toBe(
      'INVALID_INPUT',
    );
    expect((await send('POST', `/v1/server/${id}/files/chmod`, cookie, { path: '/../etc/passwd', mode: 0o777 })).json().status).toBe(
      'INVALID_INPUT',
    );
    // 000 or 444 would leave a file the server cannot write: the owner keeps read and write.
    for (const mode of [0o000, 0o444, 0o177]) {
      const refused = (await send('POST', `/v1/server/${id}/files/chmod`, cookie, { path: '/server.properties', mode })).json();
      expect(refused.status, mode.toString(8)).toBe('INVALID_INPUT');
      expect(refused.fields.mode).toMatch(/first digit must be 6 or 7/);
    }
    expect(await modeOf('server.properties')).toBe(0o600);
    // Saving new content from the editor keeps the bits the owner chose.
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/server.properties', content: 'motd=kept mode\n' });
    expect(await modeOf('server.properties')).toBe(0o600);
  });

  it('refuses names with text-direction controls, which make a name read as another, wherever a name is made', async () => {
    const { cookie, id } = await ownerWithServer();
    const sneaky = '/rtl\u202Etxt.exe';
    const answers = [
      await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: sneaky, content: 'hi' }),
      await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/dir\u2067x' }),
      await send('POST', `/v1/server/${id}/files/rename`, cookie, { from: '/server.properties', to: sneaky }),
      await send('POST', `/v1/server/${id}/files/upload-link`, cookie, { path: sneaky, size: 2 }),
      await send('POST', `/v1/server/${id}/files/archive`, cookie, { paths: ['/server.properties'], destination: '/a\u202E.zip' }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(400);
      expect(Object.values(res.json().fields ?? {})).toContain(directionControlsMessage);
    }
    const names = (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().result.map((e: { name: string }) => e.name);
    expect(names.some((n: string) => DIRECTION_CONTROLS.test(n))).toBe(false);
  });

  it("answers NOT_FOUND for another user's server", async () => {
    const owner = await ownerWithServer();
    const stranger = await ownerWithServer();
    for (const url of [
      `/v1/server/${owner.id}/files/list?path=/`,
      `/v1/server/${owner.id}/files/download?path=/server.properties`,
      `/v1/server/${owner.id}/properties`,
      `/v1/server/${owner.id}/backups`,
    ]) {
      expect((await send('GET', url, stranger.cookie)).json().status, url).toBe('NOT_FOUND');
    }
  });
});

describe('downloads through signed links on the node', () => {
  it('gives the owner a link that serves the file or the folder, and refuses it changed or after its minute', async () => {
    const { cookie, id } = await ownerWithServer();
    const other = await ownerWithServer();
    await send('POST', `/v1/server/${id}/files/mkdir`, cookie, { path: '/plugins' });
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/plugins/config.yml', content: 'mine: true\n' });
    await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/plugins/private.yml', content: 'token: 1\n' });

    const file = await download(`/v1/server/${id}/files/download?path=/plugins/config.yml`, cookie);
    expect(file).toMatchObject({ status: 200, text: 'mine: true\n' });
    const folder = await download(`/v1/server/${id}/files/download?path=/plugins`, cookie);
    expect(folder.status).toBe(200);
    expect(folder.headers.get('content-disposition')).toBe('attachment; filename="plugins.tar.gz"');
    expect(gunzipSync(folder.bytes).includes('token: 1')).toBe(true);

    // The link opens that path of that server only, for one purpose, as signed.
    const changed = async (edit: (url: URL) => void) => {
      const url = new URL(file.link);
      edit(url);
      const res = await fetch(url);
      return { code: res.status, status: ((await res.json()) as { status: string }).status };
    };
    const refused = { code: 403, status: 'NO_PERMISSION' };
    expect(await changed((u) => u.searchParams.set('path', '/plugins/private.yml'))).toEqual(refused);
    expect(await changed((u) => (u.pathname = u.pathname.replace(id, other.id)))).toEqual(refused);
    expect(await changed((u) => (u.pathname = u.pathname.replace('/file', '/backups/b1')))).toEqual(refused);
    expect(await changed((u) => u.searchParams.set('signature', 'A'.repeat(43)))).toEqual(refused);

    // A link made a minute and a second ago has expired.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() - (DOWNLOAD_LINK_SECONDS + 1) * 1000);
      const old = String((await send('GET', `/v1/server/${id}/files/download?path=/plugins/config.yml`, cookie)).headers.location);
      vi.useRealTimers();
      const res = await fetch(old);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { message: string }).message).toMatch(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("gives no link to a stranger or a signed-out browser, and a missing file is the node's NOT_FOUND", async () => {
    const owner = await ownerWithServer();
    const stranger = await ownerWithServer();
    const url = `/v1/server/${owner.id}/files/download?path=/server.properties`;
    const asStranger = await send('GET', url, stranger.cookie);
    expect([asStranger.statusCode, asStranger.json().status, asStranger.headers.location]).toEqual([404, 'NOT_FOUND', undefined]);
    const signedOut = await send('GET', url);
    expect([signedOut.statusCode, signedOut.json().status, signedOut.headers.location]).toEqual([401, 'NOT_AUTHENTICATED', undefined]);
    // A path the user may not name is refused before any link is made.
    const tooLong = await send('GET', `/v1/server/${owner.id}/files/download?path=/${'a'.repeat(5000)}`, owner.cookie);
    expect([tooLong.json().status, tooLong.headers.location]).toEqual(['INVALID_INPUT', undefined]);
    // A missing file: the node answers the envelope, not an empty download.
    const missing = await send('GET', `/v1/server/${owner.id}/files/download?path=/nope.txt`, owner.cookie);
    const res = await fetch(String(missing.headers.location));
    expect([res.status, ((await res.json()) as { status: string }).status]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('uploads straight to the node through signed links', () => {
  const uploadLink = (id: string, cookie: string | undefined, body: unknown) =>
    send('POST', `/v1/server/${id}/files/upload-link`, cookie, body);
  const put = async (url: string, bytes: Buffer) => {
    const res = await fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    return { code: res.status, ...((await res.json()) as { status: string; message?: string }) };
  };

  it('gives the owner a link that takes the file on the node; the log names the uploader once it is written', async () => {
    const { cookie, id } = await ownerWithServer();
    const me = (await send('GET', '/v1/user/me', cookie)).json().result as { userId: string; emailAddress: string };
    const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
    const answer = await uploadLink(id, cookie, { path: '/straight.bin', size: data.length });
    expect(answer.json().status).toBe('SUCCESS');
    const { url, expires } = answer.json().result as { url: string; expires: number };
    expect(url.startsWith(`${agent.nodeConfig.url}/v1/uploads/${id}/file?`)).toBe(true);
    // The address the link was asked from (each test request comes from its own).
    const askedFrom = new URL(url).searchParams.get('ip');
    expect(askedFrom).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(expires - Date.now() / 1000).toBeGreaterThan(DOWNLOAD_LINK_SECONDS - 5);
    expect(await put(url, data)).toMatchObject({ code: 200, status: 'SUCCESS' });
    expect((await download(`/v1/server/${id}/files/download?path=/straight.bin`, cookie)).bytes.equals(data)).toBe(true);
    // The node reports it; the entry is the uploader's, with the address the link was asked from.
    const entries = await until(
      async () =>
        (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries as {
          action: string;
          target: string;
          actor: unknown;
          ip: unknown;
        }[],
      (list) => list.some((e) => e.action === 'file.upload'),
    );
    expect(entries.find((e) => e.action === 'file.upload')).toMatchObject({
      target: '/straight.bin',
      actor: { userId: me.userId, emailAddress: me.emailAddress },
      ip: askedFrom,
    });
    // The address is signed in the link: another one is refused.
    expect(await put(url.replace(/ip=[^&]+/, 'ip=203.0.113.9'), data)).toMatchObject({ code: 403, status: 'NO_PERMISSION' });
    // The link is for this path and size only.
    expect(await put(url.replace('straight.bin', 'other.bin'), data)).toMatchObject({ code: 403, status: 'NO_PERMISSION' });
    // Not replacing: a name in use is refused before any link is made, and the file kept.
    const keep = await uploadLink(id, cookie, { path: '/straight.bin', size: 3, overwrite: false });
    expect([keep.statusCode, keep.json().status, keep.json().message]).toEqual([409, 'INVALID_STATE', 'straight.bin already exists.']);
    expect((await download(`/v1/server/${id}/files/download?path=/straight.bin`, cookie)).bytes.equals(data)).toBe(true);
  });

  it('refuses a file that cannot fit before any byte is sent, bad sizes, members without files.write and strangers', async () => {
    const owner = await ownerWithServer();
    const { quota } = (await send('GET', `/v1/server/${owner.id}/files/usage`, owner.cookie)).json().result;
    const tooBig = await uploadLink(owner.id, owner.cookie, { path: '/world.zip', size: quota + 1 });
    expect([tooBig.statusCode, tooBig.json().status]).toEqual([409, 'DISK_LIMIT']);
    expect(tooBig.json().message).toMatch(/^world\.zip \(2\.1 GB\) does not fit: this server has .* free of 2\.1 GB\./);
    for (const size of [-1, 1.5, '12', 2 ** 51])
      expect((await uploadLink(owner.id, owner.cookie, { path: '/a.bin', size })).json().status, String(size)).toBe('INVALID_INPUT');
    expect((await uploadLink(owner.id, owner.cookie, { path: '/../escape.bin', size: 1 })).json().status).toBe('INVALID_INPUT');

    const viewer = await signedUp(t, 'viewer');
    await t.ctx.database.db.insert(serverMembers).values({ serverId: owner.id, userId: viewer.userId, role: 'viewer' });
    const asViewer = await uploadLink(owner.id, viewer.cookie, { path: '/a.bin', size: 1 });
    expect([asViewer.statusCode, asViewer.json().status]).toEqual([403, 'NO_PERMISSION']);
    const stranger = await ownerWithServer();
    expect((await uploadLink(owner.id, stranger.cookie, { path: '/a.bin', size: 1 })).json().status).toBe('NOT_FOUND');
    expect((await uploadLink(owner.id, undefined, { path: '/a.bin', size: 1 })).json().status).toBe('NOT_AUTHENTICATED');
  });
});

describe('server.properties', () => {
  it('reads typed values and writes them back with validation', async () => {
    const { cookie, id } = await ownerWithServer();
    const current = (await send('GET', `/v1/server/${id}/properties`, cookie)).json().result;
    expect(current).toMatchObject({ 'max-players': 10, gamemode: 'survival', difficulty: 'easy', 'level-type': 'default' });
    const bad = await send('PUT', `/v1/server/${id}/properties`, cookie, { ...current, 'max-players': 500, gamemode: 'god' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().fields).sort()).toEqual(['gamemode', 'max-players']);
    // More slots than the plan gives (Free: 10).
    const over = (await send('PUT', `/v1/server/${id}/properties`, cookie, { 'max-players': 11 })).json();
    expect(over).toMatchObject({ status: 'INVALID_INPUT', fields: { 'max-players': 'Your plan allows at most 10 players' } });
    const res = await send('PUT', `/v1/server/${id}/properties`, cookie, { ...current, motd: 'Welcome home', difficulty: 'hard' });
    expect(res.json().result).toMatchObject({ motd: 'Welcome home', difficulty: 'hard' });
  });

  it('shows values the form would refuse as the file has them, and a change of another key keeps them', async () => {
    const { cookie, id } = await ownerWithServer();
    // Written with the file manager (or by the game): a MOTD too long for the server list, a seed longer
    // than the form takes, a text seed.
    const motd = 'A'.repeat(60);
    const seed = '1'.repeat(33);
    const written = `motd=${motd}\nlevel-seed=${seed}\nmax-players=10\ngamemode=survival\n`;
    expect(
      (await send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/server.properties', content: written })).json().status,
    ).toBe('SUCCESS');
    const read = await send('GET', `/v1/server/${id}/properties`, cookie);
    expect(read.statusCode).toBe(200);
    expect(read.json().result).toMatchObject({ motd, 'level-seed': seed });
    const changed = await send('PUT', `/v1/server/${id}/properties`, cookie, { difficulty: 'hard' });
    expect([changed.statusCode, changed.json().status]).toEqual([200, 'SUCCESS']);
    expect(changed.json().result).toMatchObject({ motd, 'level-seed': seed, difficulty: 'hard' });
    const file = (await send('GET', `/v1/server/${id}/files/content?path=/server.properties`, cookie)).json().result.content as string;
    expect(file).toContain(`motd=${motd}`);
    expect(file).toContain(`level-seed=${seed}`);
    // Sent itself, the MOTD is checked as the form checks it.
    const refused = (await send('PUT', `/v1/server/${id}/properties`, cookie, { motd })).json();
    expect(refused.status).toBe('INVALID_INPUT');
    expect(refused.fields.motd).toMatch(/at most 59 fit/);
  });
});

describe('backups', () => {
  it('creates with progress, lists with size and checksum, restores, locks, rotates and deletes', async () => {
    const { cookie, id } = await ownerWithServer();
    const write = (content: string) => send('PUT', `/v1/server/${id}/files/content`, cookie, { path: '/world-note.txt', content });
    await write('version one');

    const first = await send('POST', `/v1/server/${id}/backups`, cookie, {});
    expect(first.json().status).toBe('SUCCESS');
    const list = await until(
      async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result,
      (r) => r.backups.length === 1 && !r.running,
    );
    expect(list.backups[0]).toMatchObject({ locked: false });
    expect(list.backups[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(list.backups[0].size).toBeGreaterThan(0);

    await write('version two');
    const restore = await send('POST', `/v1/server/${id}/backups/${list.backups[0].backupId}/restore`, cookie, {});
    expect(restore.json().status).toBe('SUCCESS');
    // A job: done once the list no longer says one runs.
    await until(
      async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result.running,
      (running) => running === false,
    );
    expect((await send('GET', `/v1/server/${id}/files/content?path=/world-note.txt`, cookie)).json().result.content).toBe('version one');

    // Lock the first, fill to the limit of 3, and see the oldest unlocked rotate out.
    expect(
      (await send('POST', `/v1/server/${id}/backups/${list.backups[0].backupId}/lock`, cookie, { locked: true })).json().result.locked,
    ).toBe(true);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await send('POST', `/v1/server/${id}/backups`, cookie, {});
      if (res.json().status === 'RATE_LIMIT') break;
      made.push(res.json().result.backupId);
      await until(
        async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result.running,
        (r) => r === false,
      );
    }
    const after = (await send('GET', `/v1/server/${id}/backups`, cookie))
      .json()
      .result.backups.map((b: { backupId: string }) => b.backupId);
    expect(after).toContain(list.backups[0].backupId);
    expect(after.length).toBeLessThanOrEqual(3);

    const del = await send('DELETE', `/v1/server/${id}/backups/${list.backups[0].backupId}`, cookie);
    expect(del.json().status).toBe('SUCCESS');
    expect((await send('GET', `/v1/server/${id}/backups/${list.backups[0].backupId}/download`, cookie)).json().status).toBe('NOT_FOUND');

    // The activity log names the backup by the time it was made, as the Backups page lists it.
    const label = `backup of ${(list.backups[0].createdAt as string).slice(0, 19).replace('T', ' ')} UTC`;
    const logged = ((await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries as { action: string; target: string }[])
      .filter((e) => e.action !== 'file.save' && e.action !== 'backup.create')
      .map((e) => [e.action, e.target]);
    expect(logged).toEqual(
      expect.arrayContaining([
        ['backup.delete', label],
        ['backup.lock', label],
        ['backup.restore', label],
      ]),
    );
  });

  it('refuses a second backup while one runs, and never lists a pending one', async () => {
    const { cookie, id } = await ownerWithServer();
    await t.ctx.database.db.insert(backups).values({ id: 'ghost-pending', serverId: id, status: 'pending' });
    const [a, b] = await Promise.all([
      send('POST', `/v1/server/${id}/backups`, cookie, {}),
      send('POST', `/v1/server/${id}/backups`, cookie, {}),
    ]);
    expect([a.json().status, b.json().status].sort()).toEqual(['INVALID_STATE', 'SUCCESS']);
    const list = await until(
      async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result,
      (r) => !r.running,
    );
    expect(list.backups.map((x: { backupId: string }) => x.backupId)).not.toContain('ghost-pending');
  });
});
