import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildFakeJar } from '../../test-support/fake-jar.ts';
import { javaServerSpec, startTestAgent, startUntilSettled, type TestAgent } from '../../test-support/test-agent.ts';
import { SoftwareInstaller, type SoftwareMirrors } from './software-installer.ts';
import { freePort } from '../../../../test-support/free-port.ts';
import { until } from '../../../../test-support/until.ts';

/**
 * The software installer against a local HTTP server that answers in the vendors' documented shapes
 * (this machine reaches no vendor): Paper's fill v3 builds, Purpur's v2 builds, Mojang's version
 * manifest and per-version JSON, Fabric's meta API. The "vendor" is ours; the downloads, checksums and
 * cache are the real code's.
 */
const randomJar = randomBytes(300_000);
/** What the vendor serves as every jar (the tests below the first block serve a runnable one). */
let jar: Buffer = randomJar;
const digest = (algorithm: string, data: Buffer) => createHash(algorithm).update(data).digest('hex');

/** What the fake vendor does on the next download: serve the jar, a wrong one, cut it short, or stall. */
let mode: 'good' | 'wrong' | 'truncated' | 'slow' = 'good';
const stalled: ServerResponse[] = [];
let downloads = 0;
let vendor: Server;
let base: string;
const requests: string[] = [];

function vendorAnswer(req: IncomingMessage, res: ServerResponse): unknown {
  const url = req.url ?? '';
  requests.push(`${url} ${req.headers['user-agent'] ?? ''}`);
  const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (/^\/v3\/projects\/paper\/versions\/1\.2[01]\.4\/builds$/.test(url))
    return json([
      {
        id: 232,
        channel: 'BETA',
        downloads: { 'server:default': { name: 'beta.jar', url: `${base}/jar/beta`, checksums: { sha256: '0'.repeat(64) } } },
      },
      {
        id: 231,
        channel: 'STABLE',
        downloads: { 'server:default': { name: 'paper.jar', url: `${base}/jar/paper`, checksums: { sha256: digest('sha256', jar) } } },
      },
    ]);
  if (url === '/v3/projects/paper/versions/9.9.9/builds') return res.writeHead(404).end('{"error":"not found"}');
  if (url === '/v3/projects/paper/versions/1.19.4/builds') return res.writeHead(200).end('<html>not json</html>');
  if (/^\/v2\/purpur\/1\.2[01]\.4$/.test(url)) return json({ builds: { latest: '2400', all: ['2399', '2400'] } });
  if (/^\/v2\/purpur\/1\.2[01]\.4\/2400$/.test(url)) return json({ build: '2400', md5: digest('md5', jar) });
  if (url === '/mc/game/version_manifest_v2.json')
    return json({ versions: [{ id: '1.21.4', url: `${base}/v1/packages/abc/1.21.4.json`, sha1: 'a'.repeat(40) }] });
  if (url === '/v1/packages/abc/1.21.4.json')
    return json({ downloads: { server: { url: `${base}/jar/vanilla`, sha1: digest('sha1', jar), size: jar.length } } });
  if (url === '/v2/versions/loader/1.21.4') return json([{ loader: { version: '0.16.10', stable: true } }]);
  if (url === '/v2/versions/installer') return json([{ version: '1.0.1', stable: true }]);
  if (url === '/loop') return res.writeHead(302, { location: `${base}/loop` }).end();
  if (url.startsWith('/jar/') || url.endsWith('/download') || url.endsWith('/server/jar')) {
    downloads += 1;
    if (mode === 'wrong') return res.writeHead(200, { 'content-length': String(jar.length) }).end(randomBytes(jar.length));
    if (mode === 'truncated') {
      res.writeHead(200, { 'content-length': String(jar.length) });
      res.write(jar.subarray(0, 1000));
      return void setTimeout(() => res.destroy(), 50);
    }
    if (mode === 'slow') {
      // A few bytes, then nothing more: a vendor or mirror that hangs.
      res.writeHead(200, { 'content-length': String(jar.length) });
      res.write(jar.subarray(0, 1000));
      stalled.push(res);
      return;
    }
    return res.writeHead(200, { 'content-length': String(jar.length) }).end(jar);
  }
  res.writeHead(404).end();
}

beforeAll(async () => {
  vendor = createServer(vendorAnswer);
  await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  vendor.closeAllConnections();
  await new Promise((r) => vendor.close(r));
});

let cache: string;
let installer: SoftwareInstaller;
beforeEach(() => {
  mode = 'good';
  downloads = 0;
  cache = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-software-'));
  const mirrors: SoftwareMirrors = { paper: base, purpur: base, mojang: base, fabric: base };
  installer = new SoftwareInstaller(cache, mirrors);
  return () => rmSync(cache, { recursive: true, force: true });
});

/** Files in the cache, besides the finished jars: nothing half-written may stay. */
const leftovers = () => readdirSync(cache, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.part'));

describe('software installer', () => {
  it('downloads Paper (stable build, SHA-256), Purpur (MD5), Vanilla (SHA-1) and Fabric into the cache, with progress', async () => {
    const lines: string[] = [];
    for (const software of ['paper', 'purpur', 'vanilla', 'fabric'] as const) {
      const file = await installer.ensure(software, '1.21.4', (line) => lines.push(line));
      expect(file).toBe(path.join(cache, software, '1.21.4.jar'));
      expect(readFileSync(file).equals(jar)).toBe(true);
    }
    expect(lines).toContain('Downloading Paper 1.21.4 build 231…');
    expect(lines.some((l) => /Paper 1\.21\.4 build 231: \d0 % of 0\.3 MB/.test(l))).toBe(true);
    expect(lines).toContain('Downloading Purpur 1.21.4 build 2400…');
    expect(lines).toContain('Downloading Vanilla 1.21.4…');
    expect(lines).toContain('Downloading Fabric 1.21.4 (loader 0.16.10)…');
    // Vendors are told who asks (Paper's API requires a User-Agent with a contact).
    expect(requests.every((r) => r.includes('Spawnpoint-agent'))).toBe(true);
    // Cached: the next start downloads nothing.
    const before = downloads;
    await installer.ensure('paper', '1.21.4');
    expect(downloads).toBe(before);
  });

  it('shares one download between two starts that need the same version at once', async () => {
    const [a, b] = await Promise.all([installer.ensure('paper', '1.21.4'), installer.ensure('paper', '1.21.4')]);
    expect(a).toBe(b);
    expect(downloads).toBe(1);
  });

  it('refuses a download whose checksum does not match, a truncated one, and caches neither', async () => {
    mode = 'wrong';
    await expect(installer.ensure('paper', '1.21.4')).rejects.toThrow("did not match the vendor's SHA256 checksum");
    mode = 'truncated';
    await expect(installer.ensure('vanilla', '1.21.4')).rejects.toThrow(/broke off|cut short/);
    expect(existsSync(installer.jarPath('paper', '1.21.4'))).toBe(false);
    expect(existsSync(installer.jarPath('vanilla', '1.21.4'))).toBe(false);
    expect(leftovers()).toEqual([]);
    // Once the vendor serves the right file, it installs.
    mode = 'good';
    await expect(installer.ensure('paper', '1.21.4')).resolves.toBe(installer.jarPath('paper', '1.21.4'));
  });

  it('gives up a download that stalls, and caches nothing of it', async () => {
    mode = 'slow';
    const impatient = new SoftwareInstaller(cache, { paper: base, purpur: base, mojang: base, fabric: base }, undefined, 300);
    await expect(impatient.ensure('paper', '1.21.4')).rejects.toThrow('The download of Paper 1.21.4 build 231 stalled. Try again later.');
    expect(existsSync(impatient.jarPath('paper', '1.21.4'))).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it('says clearly when the vendor has no such version, answers garbage, loops redirects or cannot be reached', async () => {
    await expect(installer.ensure('paper', '9.9.9')).rejects.toThrow('The vendor has no Paper 9.9.9 (404).');
    await expect(installer.ensure('paper', '1.19.4')).rejects.toThrow("The vendor's answer about Paper 1.19.4 was not JSON.");
    await expect(installer.ensure('vanilla', '1.12.2')).rejects.toThrow('Mojang lists no Minecraft 1.12.2.');
    await expect(installer.ensure('paper', '../../etc')).rejects.toThrow('is not a Minecraft version');
    const looping = new SoftwareInstaller(cache, { paper: `${base}/loop#`, purpur: base, mojang: base, fabric: base });
    await expect(looping.ensure('paper', '1.21.4')).rejects.toThrow('Could not reach the download server for Paper 1.21.4');
    const closed = new SoftwareInstaller(cache, {
      paper: `http://127.0.0.1:${await freePort()}`,
      purpur: base,
      mojang: base,
      fabric: base,
    });
    await expect(closed.ensure('paper', '1.21.4')).rejects.toThrow('Could not reach the download server for Paper 1.21.4');
    expect(leftovers()).toEqual([]);
  });
});

describe('a Java server whose version the node lacks', () => {
  let t: TestAgent;
  const vendorJar = path.join(mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-vendor-')), 'server.jar');
  let real: Buffer;
  beforeAll(async () => {
    buildFakeJar(vendorJar);
    real = readFileSync(vendorJar);
    t = await startTestAgent(
      'installer',
      {},
      { SOFTWARE_MIRROR_PAPER: base, SOFTWARE_MIRROR_PURPUR: base, SOFTWARE_MIRROR_MOJANG: base, SOFTWARE_MIRROR_FABRIC: base },
    );
  });
  afterAll(async () => {
    await t?.close();
    jar = randomJar;
  });

  it('shows installing with download progress in the console, then starts from the downloaded jar', async () => {
    // The fake vendor serves the compiled stand-in server as Purpur's jar (its MD5 in the build JSON).
    jar = real;
    expect((await t.call('PUT', '/v1/servers/java1', await javaServerSpec('java1', 'purpur'))).body.status).toBe('SUCCESS');
    const server = t.agent.servers.get('java1');
    expect(server).toBeDefined();
    const states = await startUntilSettled(t, 'java1');
    const text = server?.console.lines().join('\n') ?? '';
    expect(text).toContain('Downloading Purpur 1.20.4 build 2400…');
    expect(text).toContain('is ready (SHA-256');
    expect(states[0]).toBe('installing');
    expect(server?.state).toBe('online');
    await t.call('POST', '/v1/servers/java1/power', { action: 'stop' });
    await until(
      () => server?.state,
      (st) => st === 'offline',
    );
  });

  it('stops at once when stopped or deleted while its software downloads, and nothing of it runs', async () => {
    mode = 'slow';
    try {
      expect((await t.call('PUT', '/v1/servers/java3', await javaServerSpec('java3', 'paper'))).body.status).toBe('SUCCESS');
      const server = t.agent.servers.get('java3');
      const installing = async () => {
        expect((await t.call('POST', '/v1/servers/java3/power', { action: 'start' })).body.status).toBe('SUCCESS');
        await until(
          () => server?.state,
          (s) => s === 'installing',
        );
      };
      await installing();
      expect((await t.call('POST', '/v1/servers/java3/power', { action: 'stop' })).body.status).toBe('SUCCESS');
      await until(
        () => server?.state,
        (s) => s === 'offline',
      );
      expect(server?.console.lines().join('\n')).toContain('The start was stopped while the software was downloading.');
      // Deleted while downloading: gone, and it does not come back when the wait ends.
      await installing();
      expect((await t.call('DELETE', '/v1/servers/java3')).body.status).toBe('SUCCESS');
      expect(t.agent.servers.has('java3')).toBe(false);
      expect(existsSync(path.join(t.dataDir, 'servers/java3'))).toBe(false);
      expect(server?.state).not.toBe('online');
    } finally {
      mode = 'good';
    }
  });

  it('stays offline with the reason in the console when the vendor has no such version', async () => {
    expect((await t.call('PUT', '/v1/servers/java2', await javaServerSpec('java2', 'vanilla'))).body.status).toBe('SUCCESS');
    const server = t.agent.servers.get('java2');
    expect((await t.call('POST', '/v1/servers/java2/power', { action: 'start' })).body.status).toBe('SUCCESS');
    await until(
      () => server?.console.lines().join('\n') ?? '',
      (text) => text.includes('Could not start: Mojang lists no Minecraft 1.20.4.'),
    );
    expect(server?.state).toBe('offline');
    expect(existsSync(path.join(t.dataDir, 'software/vanilla/1.20.4.jar'))).toBe(false);
    await until(
      () => server?.state,
      (st) => st === 'offline',
    );
  });
});
