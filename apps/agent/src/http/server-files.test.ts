import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { agentEndpoints, DOWNLOAD_LINK_SECONDS, linkSigner, fillPath } from '@spawnpoint/contracts';
import { createAgent, type Agent } from '../agent.ts';
import { loadAgentConfig } from '../config.ts';
import { backupFile } from './server-files.ts';
import { until } from '../../../../test-support/until.ts';

let agent: Agent;
let dataDir: string;
let base: string;
const token = randomBytes(24).toString('hex');
const config = () =>
  loadAgentConfig({ AGENT_TOKEN: token, AGENT_PORT: '0', DATA_DIR: dataDir, API_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'silent' });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-agent-files-'));
  agent = await createAgent(config());
  base = `http://127.0.0.1:${(agent.http.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  await rm(dataDir, { recursive: true, force: true });
});

const signer = linkSigner(token);
const inAMinute = () => Math.floor(Date.now() / 1000) + DOWNLOAD_LINK_SECONDS;

/** A link as the API makes it (same key, derived from the node token); `sign` may differ from what is asked for. */
async function fileLink(
  serverId: string,
  filePath: string,
  name: string,
  options: { expires?: number; sign?: { serverId?: string; path?: string } } = {},
) {
  const expires = options.expires ?? inAMinute();
  const signature = await signer.sign({
    purpose: 'file-download',
    serverId: options.sign?.serverId ?? serverId,
    subject: options.sign?.path ?? filePath,
    name,
    expires,
  });
  return `${base}${fillPath(agentEndpoints.signedFileDownload.path, { serverId }, { path: filePath, name, expires, signature })}`;
}

async function backupLink(serverId: string, backupId: string, name: string, expires = inAMinute()) {
  const signature = await signer.sign({ purpose: 'backup-download', serverId, subject: backupId, name, expires });
  return `${base}${fillPath(agentEndpoints.signedBackupDownload.path, { serverId, backupId }, { name, expires, signature })}`;
}

async function call(method: string, url: string, body?: unknown, raw?: Buffer) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(raw ? { 'content-type': 'application/octet-stream' } : body ? { 'content-type': 'application/json' } : {}),
    },
    body: raw ?? (body ? JSON.stringify(body) : undefined),
  });
  const type = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    body: type.includes('json') ? ((await response.json()) as { status: string; result?: unknown; message?: string }) : null,
    bytes: type.includes('json') ? null : Buffer.from(await response.arrayBuffer()),
  };
}

let portCounter = 40000 + Math.floor(Math.random() * 1000);
async function install(serverId: string, diskMb = 64) {
  const res = await call('PUT', `/v1/servers/${serverId}`, {
    serverId,
    software: 'flying-squid',
    version: '1.21.4',
    port: portCounter++,
    memoryMb: 512,
    diskMb,
    maxPlayers: 5,
    motd: 'Files',
  });
  expect(res.body?.status).toBe('SUCCESS');
  return path.join(dataDir, 'servers', serverId);
}

function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full, `${rel}${name}/`);
      else out[`${rel}${name}`] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir, '');
  return out;
}

describe('files through the agent API', () => {
  it('uploads, lists, downloads, renames, archives, extracts and deletes', async () => {
    const root = await install('files1');
    const data = randomBytes(300_000);
    expect((await call('PUT', '/v1/servers/files1/files/write?path=/plugins/big.bin&overwrite=false', undefined, data)).status).toBe(404);
    expect((await call('POST', '/v1/servers/files1/files/mkdir', { path: '/plugins' })).body?.status).toBe('SUCCESS');
    expect((await call('PUT', '/v1/servers/files1/files/write?path=/plugins/big.bin&overwrite=false', undefined, data)).body?.status).toBe(
      'SUCCESS',
    );
    expect((await call('PUT', '/v1/servers/files1/files/write?path=/plugins/big.bin&overwrite=false', undefined, data)).body?.status).toBe(
      'INVALID_STATE',
    );
    const list = (await call('GET', '/v1/servers/files1/files/list?path=/plugins')).body?.result as { name: string; size: number }[];
    expect(list).toEqual([expect.objectContaining({ name: 'big.bin', size: 300_000, type: 'file' })]);
    expect((await call('GET', '/v1/servers/files1/files/download?path=/plugins/big.bin')).bytes?.equals(data)).toBe(true);

    expect(
      (await call('POST', '/v1/servers/files1/files/rename', { from: '/plugins/big.bin', to: '/plugins/renamed.bin' })).body?.status,
    ).toBe('SUCCESS');
    expect(
      (await call('POST', '/v1/servers/files1/files/archive', { paths: ['/plugins'], destination: '/plugins.tar.gz' })).body?.status,
    ).toBe('SUCCESS');
    expect((await call('POST', '/v1/servers/files1/files/extract', { path: '/plugins.tar.gz', destination: '/copy' })).body?.status).toBe(
      'SUCCESS',
    );
    expect(readFileSync(path.join(root, 'copy/plugins/renamed.bin')).equals(data)).toBe(true);
    const found = (await call('GET', '/v1/servers/files1/files/search?q=RENAMED')).body?.result as { path: string }[];
    expect(found.map((f) => f.path).sort()).toEqual(['/copy/plugins/renamed.bin', '/plugins/renamed.bin']);

    const folder = await call('GET', '/v1/servers/files1/files/download?path=/copy');
    expect(folder.bytes?.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    expect((await call('POST', '/v1/servers/files1/files/delete', { paths: ['/copy', '/plugins.tar.gz'] })).body?.status).toBe('SUCCESS');
    expect(existsSync(path.join(root, 'copy'))).toBe(false);
  });

  it('refuses an upload past the disk quota and does not start a server over its quota', async () => {
    const root = await install('quota1', 64);
    const res = await call('PUT', '/v1/servers/quota1/files/write?path=/huge.bin', undefined, Buffer.alloc(65 * 1024 * 1024));
    expect(res.status).toBe(409);
    expect(res.body?.status).toBe('DISK_LIMIT');
    expect(existsSync(path.join(root, 'huge.bin'))).toBe(false);
    // The game server itself can fill the disk: measured at start.
    writeFileSync(path.join(root, 'written-by-game.bin'), Buffer.alloc(65 * 1024 * 1024));
    const start = await call('POST', '/v1/servers/quota1/power', { action: 'start' });
    expect(start.body?.status).toBe('DISK_LIMIT');
    expect(agent.servers.get('quota1')?.state).toBe('offline');
  });

  it('edits server.properties keeping comments and unknown keys', async () => {
    const root = await install('props1');
    writeFileSync(path.join(root, 'server.properties'), '# my notes\nmotd=Old\ncustom-key=keep me\n');
    const res = await call('PUT', '/v1/servers/props1/properties', { values: { motd: '§aNew\nline \\o/', 'max-players': '7' } });
    expect(res.body?.result).toMatchObject({ motd: '§aNew\nline \\o/', 'max-players': '7', 'custom-key': 'keep me' });
    // Java's escaping keeps the value on one line: § as \u00A7, the line break as \n, a backslash doubled.
    expect(readFileSync(path.join(root, 'server.properties'), 'utf8')).toBe(
      '# my notes\nmotd=\\u00A7aNew\\nline \\\\o/\ncustom-key=keep me\nmax-players=7\n',
    );
  });
});

describe('backups', () => {
  it('backs up, then restores every file exactly after changes', async () => {
    const root = await install('bk1');
    mkdirSync(path.join(root, 'world/region'), { recursive: true });
    writeFileSync(path.join(root, 'world/level.dat'), randomBytes(10_000));
    writeFileSync(path.join(root, 'world/region/r.0.0.mca'), randomBytes(200_000));
    const before = hashTree(root);
    expect((await call('POST', '/v1/servers/bk1/backups/b1')).body?.status).toBe('SUCCESS');
    const file = backupFile(path.join(dataDir, 'storage'), 'bk1', 'b1');
    await until(
      () => existsSync(file),
      (v) => v,
    );
    expect(existsSync(`${file}.partial`)).toBe(false);
    await until(
      () => agent.servers.get('bk1')?.state,
      (s) => s === 'offline',
    );

    writeFileSync(path.join(root, 'world/level.dat'), 'corrupted');
    writeFileSync(path.join(root, 'griefed.txt'), 'oops');
    await rm(path.join(root, 'world/region'), { recursive: true });

    expect((await call('POST', '/v1/servers/bk1/backups/b1/restore')).body?.status).toBe('SUCCESS');
    expect(hashTree(root)).toEqual(before);
    expect(readdirSync(path.dirname(root)).filter((n) => n.startsWith('bk1.'))).toEqual([]);

    // Downloaded through a signed link, as a browser does: the stored bytes under the name the API chose.
    const download = await fetch(await backupLink('bk1', 'b1', 'bk1-2026-01-01T00-00-00.tar.gz'));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="bk1-2026-01-01T00-00-00.tar.gz"');
    expect(download.headers.get('content-type')).toBe('application/gzip');
    expect(
      createHash('sha256')
        .update(Buffer.from(await download.arrayBuffer()))
        .digest('hex'),
    ).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));

    // A download cut off midway is resumed as a browser does: the rest, from where it stopped, of the same backup.
    const stored = readFileSync(file);
    const tag = download.headers.get('etag') ?? '';
    expect(download.headers.get('accept-ranges')).toBe('bytes');
    const rest = await fetch(await backupLink('bk1', 'b1', 'bk1-2026-01-01T00-00-00.tar.gz'), {
      headers: { range: `bytes=1000-`, 'if-range': tag },
    });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes 1000-${stored.length - 1}/${stored.length}`);
    expect(rest.headers.get('content-disposition')).toBe('attachment; filename="bk1-2026-01-01T00-00-00.tar.gz"');
    expect(Buffer.concat([stored.subarray(0, 1000), Buffer.from(await rest.arrayBuffer())]).equals(stored)).toBe(true);

    // A link to a backup that is gone is refused in the envelope, not offered as a file to save.
    const gone = await fetch(await backupLink('bk1', 'no-such-backup', 'bk1-gone.tar.gz'));
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-disposition')).toBeNull();
    expect(((await gone.json()) as { status: string }).status).toBe('NOT_FOUND');
  });

  it('a backup cut off by a crash leaves nothing behind after the agent restarts', async () => {
    await install('bk2');
    const file = backupFile(path.join(dataDir, 'storage'), 'bk2', 'crashed');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.partial`, 'half a backup');
    const second = await createAgent({ ...config(), AGENT_PORT: 0 });
    await second.close();
    expect(existsSync(`${file}.partial`)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });
});

/** A GET over a new connection that the server closes after its answer: the answer's head and every byte after it. */
async function onTheWire(url: string, headers: Record<string, string> = {}): Promise<{ head: string; body: Buffer }> {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = connect(Number(port), hostname);
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\n${extra.join('')}Connection: close\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const all = Buffer.concat(chunks);
  const end = all.indexOf('\r\n\r\n');
  return { head: all.subarray(0, end).toString('latin1').toLowerCase(), body: all.subarray(end + 4) };
}

/** How many descriptors this process holds on anything inside `dir` (the folder's own descriptor excluded). */
const openIn = (dir: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}/`);
    } catch {
      return false;
    }
  }).length;

describe('signed download links', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const put = (serverId: string, file: string, bytes: Buffer) =>
    call('PUT', `/v1/servers/${serverId}/files/write?path=${encodeURIComponent(file)}`, undefined, bytes);

  it('serves a file, and a folder as .tar.gz, to a browser without the node token, named and with browser headers', async () => {
    await install('dl1');
    expect((await call('POST', '/v1/servers/dl1/files/mkdir', { path: '/world' })).body?.status).toBe('SUCCESS');
    const data = randomBytes(300_000);
    expect((await put('dl1', '/world/Ñandú "menu".bin', data)).body?.status).toBe('SUCCESS');

    const file = await fetch(await fileLink('dl1', '/world/Ñandú "menu".bin', 'Ñandú "menu".bin'));
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(data)).toBe(true);
    expect(file.headers.get('content-length')).toBe(String(data.length));
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="Nandu _menu_.bin"; filename*=UTF-8''${encodeURIComponent('Ñandú "menu".bin')}`,
    );
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('cache-control')).toBe('no-store');
    expect(file.headers.get('referrer-policy')).toBe('no-referrer');
    expect(file.headers.get('content-security-policy')).toContain('sandbox');

    const folder = await fetch(await fileLink('dl1', '/world', 'world'));
    expect(folder.status).toBe(200);
    expect(folder.headers.get('content-type')).toBe('application/gzip');
    expect(folder.headers.get('content-disposition')).toBe('attachment; filename="world.tar.gz"');
    const tar = gunzipSync(Buffer.from(await folder.arrayBuffer()));
    expect(tar.includes(data.subarray(0, 1000))).toBe(true);
  });

  it('answers a download address the router cannot read in the envelope, with browser headers and without echoing it', async () => {
    for (const [url, status, code] of [
      ['/v1/servers/%E0%A4%A/download?path=%2Fa', 400, 'INVALID_INPUT'],
      [`/v1/servers/${'a'.repeat(300)}/download`, 404, 'NOT_FOUND'],
    ] as const) {
      const res = await fetch(`${base}${url}`);
      expect(res.status, url).toBe(status);
      const text = await res.text();
      expect(JSON.parse(text).status, url).toBe(code);
      expect(text, url).not.toContain('/v1/servers/');
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect(res.headers.get('content-security-policy'), url).toContain('sandbox');
      expect(res.headers.get('cache-control'), url).toBe('no-store');
    }
  });

  it('refuses any other path without the node token with the browser headers too', async () => {
    for (const url of ['/nothing-here', '/v1/servers/dl1/files/list?path=%2F']) {
      const res = await fetch(`${base}${url}`);
      expect(res.status, url).toBe(401);
      expect(((await res.json()) as { status: string }).status, url).toBe('NOT_AUTHENTICATED');
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect(res.headers.get('content-security-policy'), url).toContain('sandbox');
      expect(res.headers.get('referrer-policy'), url).toBe('no-referrer');
    }
  });

  it('refuses a link reused after expiry, for another path, another server or another purpose, and a tampered one', async () => {
    await install('dl2');
    await install('dl3');
    expect((await put('dl2', '/public.txt', Buffer.from('shared'))).body?.status).toBe('SUCCESS');
    expect((await put('dl2', '/secret.txt', Buffer.from('dl2 secret'))).body?.status).toBe('SUCCESS');
    expect((await put('dl3', '/public.txt', Buffer.from('dl3 file'))).body?.status).toBe('SUCCESS');
    const refused = async (url: string | URL) => {
      const res = await fetch(url);
      const body = (await res.json()) as { status: string; message?: string };
      return { code: res.status, status: body.status, message: body.message ?? '' };
    };
    const link = await fileLink('dl2', '/public.txt', 'public.txt');
    const changed = (edit: (url: URL) => void) => {
      const url = new URL(link);
      edit(url);
      return url;
    };

    // The link as made works, and again within its minute (a browser may retry).
    expect(await (await fetch(link)).text()).toBe('shared');
    expect(await (await fetch(link)).text()).toBe('shared');

    // Another path, another server, another name, a later expiry, a changed signature: not what was signed.
    const notValid = { code: 403, status: 'NO_PERMISSION', message: expect.stringMatching(/not valid/) };
    expect(await refused(changed((u) => u.searchParams.set('path', '/secret.txt')))).toEqual(notValid);
    expect(await refused(changed((u) => (u.pathname = u.pathname.replace('/dl2/', '/dl3/'))))).toEqual(notValid);
    expect(await refused(changed((u) => u.searchParams.set('name', 'invoice.exe')))).toEqual(notValid);
    expect(await refused(changed((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))))).toEqual(
      notValid,
    );
    expect(
      await refused(
        changed((u) => {
          // The first character, not the last: a base64url string's last character also holds unused
          // bits, so changing those alone may decode to the same signature.
          const signature = u.searchParams.get('signature') ?? '';
          u.searchParams.set('signature', `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`);
        }),
      ),
    ).toEqual(notValid);
    // Signed with another node's token.
    const foreign = linkSigner(randomBytes(24).toString('hex'));
    const expires = inAMinute();
    const foreignSignature = await foreign.sign({ purpose: 'file-download', serverId: 'dl2', subject: '/secret.txt', name: 's', expires });
    expect(
      await refused(
        `${base}${fillPath(agentEndpoints.signedFileDownload.path, { serverId: 'dl2' }, { path: '/secret.txt', name: 's', expires, signature: foreignSignature })}`,
      ),
    ).toEqual(notValid);
    // Another purpose: a file link's signature for the subject "b1" does not open the backup b1.
    const fileSignature = await signer.sign({ purpose: 'file-download', serverId: 'dl2', subject: 'b1', name: 'b1', expires });
    expect(
      await refused(
        `${base}${fillPath(agentEndpoints.signedBackupDownload.path, { serverId: 'dl2', backupId: 'b1' }, { name: 'b1', expires, signature: fileSignature })}`,
      ),
    ).toEqual(notValid);
    // No signature at all, or not even its shape: bad input, in the envelope.
    expect(await refused(changed((u) => u.searchParams.delete('signature')))).toMatchObject({ code: 400, status: 'INVALID_INPUT' });
    expect(await refused(changed((u) => u.searchParams.set('signature', '../../etc')))).toMatchObject({
      code: 400,
      status: 'INVALID_INPUT',
    });
    // The node token's routes still want the token.
    expect((await fetch(`${base}/v1/servers/dl2/files/download?path=%2Fsecret.txt`)).status).toBe(401);

    // The same link, a second past its minute: refused as expired.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (DOWNLOAD_LINK_SECONDS + 1) * 1000);
    expect(await refused(link)).toEqual({ code: 403, status: 'NO_PERMISSION', message: expect.stringMatching(/expired/) });
  });

  it('resumes a download from where it stopped while the file is unchanged, and sends the whole file otherwise', async () => {
    const dir = await install('dl7', 256);
    const MiB = 1024 * 1024;
    const data = randomBytes(3 * MiB + 5);
    writeFileSync(path.join(dir, 'world.bin'), data);
    const link = await fileLink('dl7', '/world.bin', 'world.bin');
    const first = await fetch(link);
    expect(first.headers.get('accept-ranges')).toBe('bytes');
    const tag = first.headers.get('etag') ?? '';
    expect(tag).toMatch(/^"[0-9a-z]+-[0-9a-z]+-[0-9a-z]+"$/);
    await first.body?.cancel();

    // The browser lost the connection after 1.5 MiB and asks for the rest of the same version.
    const rest = await fetch(link, { headers: { range: `bytes=${1.5 * MiB}-`, 'if-range': tag } });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes ${1.5 * MiB}-${data.length - 1}/${data.length}`);
    expect(rest.headers.get('content-length')).toBe(String(data.length - 1.5 * MiB));
    expect(rest.headers.get('content-disposition')).toBe('attachment; filename="world.bin"');
    expect(Buffer.from(await rest.arrayBuffer()).equals(data.subarray(1.5 * MiB))).toBe(true);
    // One range inside the file, read off the wire: exactly its bytes, not one more; the last bytes alone.
    const { head, body } = await onTheWire(link, { range: 'bytes=10-1048585' });
    expect(head).toMatch(/^http\/1.1 206/);
    expect(head).toContain('content-length: 1048576');
    expect(body.equals(data.subarray(10, 1048586))).toBe(true);
    const tail = await fetch(link, { headers: { range: 'bytes=-7' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(data.subarray(-7))).toBe(true);

    // The game changed the file since — in place, same size, even setting its modification time back as a
    // hostile tenant may: the old tag does not match, so the whole new file comes, never a mix of the two.
    const changed = randomBytes(data.length);
    const { atime, mtime } = statSync(path.join(dir, 'world.bin'));
    writeFileSync(path.join(dir, 'world.bin'), changed);
    utimesSync(path.join(dir, 'world.bin'), atime, mtime);
    const whole = await fetch(link, { headers: { range: `bytes=${1.5 * MiB}-`, 'if-range': tag } });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('etag')).not.toBe(tag);
    expect(Buffer.from(await whole.arrayBuffer()).equals(changed)).toBe(true);
    // Several ranges, another unit or a header that does not parse: the whole file, a correct answer too.
    for (const range of ['bytes=0-1,100-200', 'items=0-5', 'bytes=abc']) {
      const res = await fetch(link, { headers: { range } });
      expect(res.status, range).toBe(200);
      expect((await res.arrayBuffer()).byteLength, range).toBe(changed.length);
    }
    // Past the end: refused in the envelope, which no browser saves as world.bin.
    const past = await fetch(link, { headers: { range: `bytes=${changed.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${changed.length}`);
    expect(past.headers.get('content-disposition')).toBeNull();
    expect(((await past.json()) as { status: string }).status).toBe('INVALID_INPUT');
    // A HEAD ignores Range: the whole file's headers, no body.
    const headOnly = await fetch(link, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    expect(headOnly.status).toBe(200);
    expect(headOnly.headers.get('content-length')).toBe(String(changed.length));
    expect(headOnly.headers.get('content-range')).toBeNull();
    // Ranges are for the link's own file only: an expired link is refused whatever it asks for (the
    // describe's afterEach puts the clock back).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (DOWNLOAD_LINK_SECONDS + 1) * 1000);
    expect((await fetch(link, { headers: { range: 'bytes=0-9' } })).status).toBe(403);
    vi.useRealTimers();
    await until(
      () => openIn(dir),
      (n) => n === 0,
      2_000,
    );
  });

  it('closes the file at once when the browser cancels a download', async () => {
    const dir = await install('dl4', 256);
    writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(96 * 1024 * 1024, 1));
    for (let round = 0; round < 3; round++) {
      const abort = new AbortController();
      const response = await fetch(await fileLink('dl4', '/big.bin', 'big.bin'), { signal: abort.signal });
      expect(response.status).toBe(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      // Midway, the file is open…
      expect(openIn(dir)).toBe(1);
      abort.abort();
      await reader.cancel().catch(() => undefined);
      // …and closed as soon as the browser went away, not when the whole file would have been read.
      await until(
        () => openIn(dir),
        (n) => n === 0,
        2_000,
      );
    }
    expect((await call('GET', '/v1/servers')).status).toBe(200);
  });

  it('sends each file exactly, whatever another download left in the reused buffers, and answers HEAD without the body', async () => {
    const dir = await install('dl5', 256);
    const MiB = 1024 * 1024;
    // Another tenant's large file first: its bytes fill the buffers the next downloads reuse.
    writeFileSync(path.join(dir, 'other.bin'), Buffer.alloc(12 * MiB, 0x42));
    const other = await fetch(await fileLink('dl5', '/other.bin', 'other.bin'));
    expect(Buffer.from(await other.arrayBuffer()).equals(Buffer.alloc(12 * MiB, 0x42))).toBe(true);
    // Sizes that end inside a chunk, and an empty file; read off the wire to its end, so a single byte more
    // than the file (which a browser would take for the start of the next answer) shows.
    for (const size of [MiB + MiB / 2, 3 * MiB + 7, 0, 100]) {
      const data = randomBytes(size);
      writeFileSync(path.join(dir, 'mine.bin'), data);
      const { head, body } = await onTheWire(await fileLink('dl5', '/mine.bin', 'mine.bin'));
      expect(head).toContain(`content-length: ${size}`);
      expect(body.length).toBe(size);
      expect(body.equals(data)).toBe(true);
    }
    const head = await fetch(await fileLink('dl5', '/other.bin', 'other.bin'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(12 * MiB));
    expect(head.headers.get('content-security-policy')).toContain('sandbox');
    await until(
      () => openIn(dir),
      (n) => n === 0,
      2_000,
    );
  });

  it('cuts a download off when the file shrinks midway, never filling it with other bytes', async () => {
    const dir = await install('dl6', 256);
    const MiB = 1024 * 1024;
    writeFileSync(path.join(dir, 'other.bin'), Buffer.alloc(8 * MiB, 0x42));
    await (await fetch(await fileLink('dl6', '/other.bin', 'other.bin'))).arrayBuffer();
    // Every 4-byte word says where it is, so a byte from anywhere else (a reused buffer's) shows.
    const world = Buffer.alloc(64 * MiB);
    for (let offset = 0; offset < world.length; offset += 4) world.writeUInt32LE(offset, offset);
    writeFileSync(path.join(dir, 'world.bin'), world);
    const response = await fetch(await fileLink('dl6', '/world.bin', 'world.bin'));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    // The game truncates the file while it is being downloaded.
    truncateSync(path.join(dir, 'world.bin'), MiB / 2);
    const received: Uint8Array[] = first.value ? [first.value] : [];
    const ended = await Promise.race([
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'complete';
          received.push(value);
        }
      })().catch(() => 'cut off'),
      // An answer left open short of its length would keep the browser waiting until the connection times out.
      new Promise((resolve) => setTimeout(resolve, 10_000, 'left waiting')),
    ]);
    // The browser sees a failed download (fewer bytes than announced), and every byte it got is the file's.
    expect(ended).toBe('cut off');
    const bytes = Buffer.concat(received);
    expect(bytes.length).toBeLessThan(64 * MiB);
    expect(bytes.equals(world.subarray(0, bytes.length))).toBe(true);
    await until(
      () => openIn(dir),
      (n) => n === 0,
      2_000,
    );
  });
});

describe('signed upload links', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A link as the API makes it; `sign` may differ from what the link says. */
  async function uploadLink(
    serverId: string,
    filePath: string,
    size: number,
    options: {
      overwrite?: boolean;
      expires?: number;
      sign?: Partial<{ serverId: string; path: string; size: number; overwrite: boolean }>;
    } = {},
  ) {
    const expires = options.expires ?? inAMinute();
    const overwrite = options.overwrite ?? true;
    const signature = await signer.sign({
      purpose: 'file-upload',
      serverId: options.sign?.serverId ?? serverId,
      path: options.sign?.path ?? filePath,
      size: options.sign?.size ?? size,
      overwrite: options.sign?.overwrite ?? overwrite,
      actorId: 'user-1',
      expires,
    });
    const query = { path: filePath, size, overwrite: String(overwrite), actor: 'user-1', expires, signature };
    return `${base}${fillPath(agentEndpoints.signedFileUpload.path, { serverId }, query)}`;
  }
  const send = async (url: string | URL, body: Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) => {
    const res = await fetch(url, {
      method: 'PUT',
      body,
      headers: { 'content-type': 'application/octet-stream', ...headers },
      duplex: 'half',
    } as RequestInit);
    const answer = (await res.json()) as { status: string; message?: string; result?: unknown };
    return { code: res.status, status: answer.status, message: answer.message ?? '', result: answer.result, headers: res.headers };
  };

  it('takes a file from a browser without the node token, exactly as signed, and answers its preflight', async () => {
    const dir = await install('up1');
    const data = randomBytes(700_000);
    const link = await uploadLink('up1', '/world/Ñandú.bin', data.length);
    // The dashboard's page is another origin: the browser asks first, and may then read the answer.
    const preflight = await fetch(link, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://panel.example',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('PUT');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

    const missingFolder = await send(link, data);
    expect(missingFolder).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect((await call('POST', '/v1/servers/up1/files/mkdir', { path: '/world' })).body?.status).toBe('SUCCESS');
    const done = await send(link, data);
    expect(done).toMatchObject({ code: 200, status: 'SUCCESS', result: { bytes: data.length } });
    expect(done.headers.get('access-control-allow-origin')).toBe('*');
    expect(done.headers.get('x-content-type-options')).toBe('nosniff');
    expect(readFileSync(path.join(dir, 'world', 'Ñandú.bin')).equals(data)).toBe(true);
    // An empty file is a file too.
    expect(await send(await uploadLink('up1', '/empty.txt', 0), new Uint8Array(0))).toMatchObject({
      status: 'SUCCESS',
      result: { bytes: 0 },
    });
    expect(statSync(path.join(dir, 'empty.txt')).size).toBe(0);
  });

  it('refuses a link changed in any part, expired, or signed for a download; and bytes that are not the signed size, keeping nothing', async () => {
    const dir = await install('up2');
    await install('up3');
    writeFileSync(path.join(dir, 'kept.txt'), 'as it was');
    const data = Buffer.from('twelve bytes');
    const link = await uploadLink('up2', '/new.txt', data.length, { overwrite: false });
    const changed = (edit: (url: URL) => void) => {
      const url = new URL(link);
      edit(url);
      return url;
    };
    const notValid = { code: 403, status: 'NO_PERMISSION', message: expect.stringMatching(/upload link is not valid/) };
    expect(
      await send(
        changed((u) => u.searchParams.set('path', '/kept.txt')),
        data,
      ),
    ).toMatchObject(notValid);
    expect(
      await send(
        changed((u) => (u.pathname = u.pathname.replace('/up2/', '/up3/'))),
        data,
      ),
    ).toMatchObject(notValid);
    expect(
      await send(
        changed((u) => u.searchParams.set('size', '13')),
        Buffer.from('thirteen byte'),
      ),
    ).toMatchObject(notValid);
    expect(
      await send(
        changed((u) => u.searchParams.set('overwrite', 'true')),
        data,
      ),
    ).toMatchObject(notValid);
    expect(
      await send(
        changed((u) => u.searchParams.set('actor', 'someone-else')),
        data,
      ),
    ).toMatchObject(notValid);
    expect(
      await send(
        changed((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))),
        data,
      ),
    ).toMatchObject(notValid);
    // A download link's signature for the same path is not an upload's.
    const expires = inAMinute();
    const downloadSignature = await signer.sign({
      purpose: 'file-download',
      serverId: 'up2',
      subject: '/new.txt',
      name: 'new.txt',
      expires,
    });
    const asDownload = fillPath(
      agentEndpoints.signedFileUpload.path,
      { serverId: 'up2' },
      { path: '/new.txt', size: data.length, overwrite: 'false', actor: 'user-1', expires, signature: downloadSignature },
    );
    expect(await send(`${base}${asDownload}`, data)).toMatchObject(notValid);
    // Signed for another path: replacing a file through it is refused.
    expect(await send(await uploadLink('up2', '/kept.txt', 5, { sign: { path: '/new.txt' } }), Buffer.from('wrong'))).toMatchObject(
      notValid,
    );

    // More bytes than signed, sent without a length (chunked), and fewer: refused, and no file is left.
    const chunked = (bytes: Buffer) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      });
    expect(await send(link, chunked(Buffer.concat([data, Buffer.alloc(70_000)])))).toMatchObject({
      code: 400,
      status: 'INVALID_INPUT',
      message: expect.stringMatching(/larger than the size/),
    });
    expect(await send(link, chunked(data.subarray(0, 5)))).toMatchObject({
      code: 400,
      status: 'INVALID_INPUT',
      message: expect.stringMatching(/did not complete/),
    });
    // A declared length other than the signed size: refused before the body is read.
    expect(await send(link, Buffer.from('short'))).toMatchObject({
      code: 400,
      status: 'INVALID_INPUT',
      message: expect.stringMatching(/not the size/),
    });
    expect(existsSync(path.join(dir, 'new.txt'))).toBe(false);

    // Not overwriting: an existing name is refused and kept as it was.
    expect(await send(await uploadLink('up2', '/kept.txt', data.length, { overwrite: false }), data)).toMatchObject({
      status: 'INVALID_STATE',
    });
    expect(readFileSync(path.join(dir, 'kept.txt'), 'utf8')).toBe('as it was');
    // The link as made works.
    expect(await send(link, data)).toMatchObject({ code: 200, status: 'SUCCESS' });
    expect(readFileSync(path.join(dir, 'new.txt'), 'utf8')).toBe('twelve bytes');

    // A second past its minute: expired.
    const late = await uploadLink('up2', '/late.txt', data.length);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (DOWNLOAD_LINK_SECONDS + 1) * 1000);
    expect(await send(late, data)).toMatchObject({ code: 403, status: 'NO_PERMISSION', message: expect.stringMatching(/expired/) });
    expect(existsSync(path.join(dir, 'late.txt'))).toBe(false);
  });

  it('survives a browser that goes away before the upload is read, and refuses a body that is not the file', async () => {
    const dir = await install('up5');
    const { port } = new URL(base);
    const link = new URL(await uploadLink('up5', '/deep/a/b/c/gone.bin', 50 * 1024 * 1024));
    for (let i = 0; i < 20; i++) {
      // Headers and a few bytes, then a reset, while the node is still checking the link and opening folders.
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `PUT ${link.pathname}${link.search} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\nabc`,
      );
      socket.resetAndDestroy();
    }
    // Still serving, and nothing was left behind.
    expect((await call('GET', '/v1/servers')).status).toBe(200);
    expect(existsSync(path.join(dir, 'deep'))).toBe(false);

    // A body of another type (or none) is no file: bad input, not a fault of the node.
    const small = await uploadLink('up5', '/typed.txt', 2);
    for (const type of ['text/plain', 'application/json']) {
      const res = await fetch(small, { method: 'PUT', body: type === 'application/json' ? '{}' : 'hi', headers: { 'content-type': type } });
      expect([res.status, ((await res.json()) as { status: string }).status], type).toEqual([400, 'INVALID_INPUT']);
    }
    const empty = await fetch(await uploadLink('up5', '/none.txt', 0), { method: 'PUT' });
    expect([empty.status, ((await empty.json()) as { status: string }).status]).toEqual([400, 'INVALID_INPUT']);
    expect(existsSync(path.join(dir, 'typed.txt'))).toBe(false);
  });

  it('refuses at once a file that cannot fit, before its bytes are written', async () => {
    const dir = await install('up4', 64);
    const size = 65 * 1024 * 1024;
    const refused = await send(await uploadLink('up4', '/big.bin', size), Buffer.alloc(size, 7));
    expect(refused).toMatchObject({ code: 409, status: 'DISK_LIMIT', message: expect.stringMatching(/big\.bin .* does not fit/) });
    expect(existsSync(path.join(dir, 'big.bin'))).toBe(false);
    // The control plane asks the same before it signs a link.
    const fits = await call('POST', '/v1/servers/up4/files/fits', { path: '/big.bin', size });
    expect(fits.body).toMatchObject({ status: 'DISK_LIMIT' });
    expect((await call('POST', '/v1/servers/up4/files/fits', { path: '/small.bin', size: 1000 })).body?.status).toBe('SUCCESS');
    // A name in use that may not be replaced: refused before the link is made too.
    writeFileSync(path.join(dir, 'small.bin'), 'in use');
    expect((await call('POST', '/v1/servers/up4/files/fits', { path: '/small.bin', size: 1000, overwrite: false })).body).toMatchObject({
      status: 'INVALID_STATE',
      message: 'small.bin already exists.',
    });
    expect((await call('POST', '/v1/servers/up4/files/fits', { path: '/small.bin', size: 1000 })).body?.status).toBe('SUCCESS');
  });
});
