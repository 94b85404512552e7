import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { createServer, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test-support/free-port.ts';
import { buildTestAppWithAgent, multipart, ownerWithServer, requester, type Send } from '../test/build-test-app.ts';

/**
 * Java plugins from Modrinth and Hangar, with a real agent fetching into a real server folder. This machine
 * reaches neither catalogue, so a local HTTP server answers in their documented shapes (Modrinth API v2,
 * Hangar API v1): pagination, a project with no version for the server, a file whose hash does not match,
 * a file that is no jar, a redirect to a host the node may not fetch from, a 429 with Retry-After, and a
 * catalogue that never answers.
 */
let env: Awaited<ReturnType<typeof buildTestAppWithAgent>>;
let t: Awaited<ReturnType<typeof buildTestAppWithAgent>>['t'];
let catalogue: Server;
let base = '';
const send: Send = (...args) => requester(t.app)(...args);

// A jar is a zip: the local "files" start like one.
const jar = (text: string) => Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.from(text)]);
const files: Record<string, Buffer> = {
  'worldguard-7.0.9.jar': jar('worldguard 7.0.9'),
  'worldguard-7.1.0.jar': jar('worldguard 7.1.0'),
  'broken-1.0.jar': jar('the real bytes'),
  'notajar-1.0.jar': Buffer.from('MZ\u0090\u0000 a Windows program'),
  'chunky-1.4.jar': jar('chunky from hangar'),
};
const sha512 = (b: Buffer) => createHash('sha512').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
// Flipped by the test: the catalogue publishes a newer version.
let worldguardNewest = '7.0.9';

function modrinthVersion(id: string, versionNumber: string, fileName: string, hash: string, url = `${base}/files/${fileName}`) {
  return {
    id,
    project_id: 'wg',
    version_number: versionNumber,
    version_type: 'release',
    date_published: `2026-0${versionNumber === '7.1.0' ? 9 : 3}-01T12:00:00Z`,
    game_versions: ['1.20.4'],
    loaders: ['paper'],
    files: [{ url, filename: fileName, size: files[fileName]?.length ?? 10, primary: true, hashes: { sha512: hash, sha1: 'x' } }],
  };
}

// The slow file's download: held open until the test lets it end.
let slowStarted: () => void = () => undefined;
let slowResponse: ServerResponse | null = null;

function answer(url: URL): { status: number; body?: unknown; headers?: Record<string, string>; raw?: Buffer } | 'hang' | 'slow' {
  const p = url.pathname;
  if (p === '/files/slow.jar') return 'slow';
  if (p.startsWith('/files/')) {
    const file = files[p.slice('/files/'.length)];
    return file ? { status: 200, raw: file } : { status: 404 };
  }
  if (p === '/v2/search') {
    if (url.searchParams.get('query') === 'slow') return 'hang';
    if (url.searchParams.get('query') === 'busy') return { status: 429, headers: { 'retry-after': '30' }, body: {} };
    // A hostile or broken catalogue: a redirect to another address, an answer of megabytes.
    if (url.searchParams.get('query') === 'moved') return { status: 302, headers: { location: `${base}/v2/search?query=inside` } };
    if (url.searchParams.get('query') === 'inside') throw new Error('the API followed a catalogue redirect');
    if (url.searchParams.get('query') === 'huge') return { status: 200, body: { hits: [], padding: 'x'.repeat(3 * 1024 * 1024) } };
    const facets = JSON.parse(url.searchParams.get('facets') ?? '[]') as string[][];
    const offset = Number(url.searchParams.get('offset'));
    // 23 projects in all: a second page of 3.
    const all = Array.from({ length: 23 }, (_, i) => ({
      project_id: i === 0 ? 'wg' : `p${i}`,
      title: i === 0 ? 'WorldGuard' : `Plugin ${i}`,
      description: 'Protects regions',
      author: 'sk89q',
      icon_url: i === 0 ? 'https://cdn.modrinth.com/icon.png' : 'javascript:alert(1)',
      downloads: 1000 - i,
      versions: ['1.20.4', '1.21'],
      facets,
    }));
    return { status: 200, body: { hits: all.slice(offset, offset + 20), offset, limit: 20, total_hits: all.length } };
  }
  const project = /^\/v2\/project\/([^/]+)(\/version)?$/.exec(p);
  if (project) {
    // Modrinth answers a project's slug as its id does, with the project's own id in the answer.
    const id = project[1] === 'worldguard' ? 'wg' : project[1]!;
    if (!['wg', 'oldonly', 'broken', 'notajar', 'elsewhere', 'sneaky', 'slow'].includes(id)) return { status: 404 };
    if (!project[2])
      return { status: 200, body: { id, title: id === 'wg' ? 'WorldGuard' : `Project ${id}`, description: '', downloads: 5 } };
    const loaders = JSON.parse(url.searchParams.get('loaders') ?? '[]') as string[];
    const versions = JSON.parse(url.searchParams.get('game_versions') ?? '[]') as string[];
    if (!loaders.includes('paper') || !versions.includes('1.20.4')) return { status: 200, body: [] };
    switch (id) {
      case 'wg':
        return {
          status: 200,
          body:
            worldguardNewest === '7.1.0'
              ? [
                  modrinthVersion('v710', '7.1.0', 'worldguard-7.1.0.jar', sha512(files['worldguard-7.1.0.jar']!)),
                  modrinthVersion('v709', '7.0.9', 'worldguard-7.0.9.jar', sha512(files['worldguard-7.0.9.jar']!)),
                ]
              : [modrinthVersion('v709', '7.0.9', 'worldguard-7.0.9.jar', sha512(files['worldguard-7.0.9.jar']!))],
        };
      case 'oldonly':
        return { status: 200, body: [] };
      case 'broken':
        return { status: 200, body: [modrinthVersion('b1', '1.0', 'broken-1.0.jar', sha512(Buffer.from('other bytes')))] };
      case 'notajar':
        return { status: 200, body: [modrinthVersion('n1', '1.0', 'notajar-1.0.jar', sha512(files['notajar-1.0.jar']!))] };
      case 'elsewhere':
        return {
          status: 200,
          body: [modrinthVersion('e1', '1.0', 'worldguard-7.0.9.jar', sha512(files['worldguard-7.0.9.jar']!), `${base}/redirect`)],
        };
      case 'slow':
        return { status: 200, body: [modrinthVersion('sl1', '1.0', 'slow.jar', sha512(Buffer.from('never sent whole')))] };
      case 'sneaky':
        return { status: 200, body: [modrinthVersion('s1', '1.0', '../../escape.jar', sha512(files['worldguard-7.0.9.jar']!))] };
      default:
        return { status: 404 };
    }
  }
  // The node may fetch from this host only: a redirect to its own network (another host) is refused.
  if (p === '/redirect') return { status: 302, headers: { location: `http://localhost:${new URL(base).port}/files/worldguard-7.0.9.jar` } };
  if (p === '/api/v1/projects')
    return {
      status: 200,
      body: {
        pagination: { limit: 20, offset: 0, count: 1 },
        result: [
          {
            name: 'Chunky',
            namespace: { owner: 'pop4959', slug: 'Chunky' },
            description: 'Pre-generates chunks',
            avatarUrl: 'https://hangarcdn.papermc.io/avatar.png',
            stats: { downloads: 42 },
            supportedPlatforms: { PAPER: ['1.20-1.21.4'] },
          },
        ],
      },
    };
  if (p === '/api/v1/projects/Chunky')
    return {
      status: 200,
      body: { name: 'Chunky', namespace: { owner: 'pop4959', slug: 'Chunky' }, description: '', stats: { downloads: 42 } },
    };
  if (p === '/api/v1/projects/Chunky/versions') {
    const file = files['chunky-1.4.jar']!;
    return {
      status: 200,
      body: {
        pagination: { limit: 10, offset: 0, count: 1 },
        result: [
          {
            id: 77,
            name: '1.4',
            downloads: {
              PAPER: {
                fileInfo: { name: 'chunky-1.4.jar', sizeBytes: file.length, sha256Hash: sha256(file) },
                downloadUrl: `${base}/files/chunky-1.4.jar`,
              },
            },
          },
        ],
      },
    };
  }
  return { status: 404 };
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  catalogue = createServer((req, res) => {
    const result = answer(new URL(req.url ?? '/', base));
    if (result === 'hang') return;
    if (result === 'slow') {
      res.writeHead(200, { 'content-type': 'application/java-archive' });
      res.write(Buffer.from('PK\u0003\u0004', 'latin1'));
      slowResponse = res;
      slowStarted();
      return;
    }
    res.writeHead(result.status, { 'content-type': result.raw ? 'application/java-archive' : 'application/json', ...result.headers });
    res.end(result.raw ?? (result.body === undefined ? '' : JSON.stringify(result.body)));
  });
  await new Promise<void>((resolve) => catalogue.listen(port, '127.0.0.1', resolve));
  env = await buildTestAppWithAgent(
    // Answers not kept, so the catalogue's new version is seen at once.
    { RATE_LIMIT_FACTOR: '5', MODRINTH_API_URL: base, HANGAR_API_URL: base, PLUGIN_CATALOGUE_CACHE_SECONDS: '0' },
    { PLUGIN_DOWNLOAD_HOSTS: `127.0.0.1:${port}`, PLUGIN_DOWNLOAD_ALLOW_HTTP: 'true' },
  );
  t = env.t;
});
afterAll(async () => {
  await env.cleanup();
  catalogue.closeAllConnections();
  await new Promise((resolve) => catalogue.close(resolve));
});

/** A real zip (a jar is one), written by Python's zipfile as `zip` would. */
function zip(entries: Record<string, string>): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-jar-'));
  const file = path.join(dir, 'out.jar');
  execFileSync('python3', [
    '-c',
    'import zipfile,sys,json\nz=zipfile.ZipFile(sys.argv[1],"w",zipfile.ZIP_DEFLATED)\nfor k,v in json.loads(sys.argv[2]).items(): z.writestr(k,v)\nz.close()',
    file,
    JSON.stringify(entries),
  ]);
  return readFileSync(file);
}

type Installed = {
  id: string;
  name: string;
  version: string;
  enabled: boolean;
  file: string;
  sha512: string | null;
  sha256: string | null;
  versionId: string;
};

describe('Java plugins from the catalogues', () => {
  it('searches Modrinth for the server, installs a plugin checked against its SHA-512, offers and applies an update, turns it off and removes it', async () => {
    const { cookie, id } = await ownerWithServer(t, 'javaplug', { software: 'paper', version: '1.20.4' });
    const folder = (...parts: string[]) => path.join(env.agent.dataDir, 'servers', id, ...parts);
    const listed = (await send('GET', `/v1/server/${id}/plugins`, cookie)).json().result;
    expect(listed).toMatchObject({ catalogueAvailable: false, javaSources: ['modrinth', 'hangar'], plugins: [] });

    const page1 = (await send('GET', `/v1/server/${id}/plugins/catalogue?source=modrinth&q=guard`, cookie)).json().result;
    expect(page1).toMatchObject({ total: 23, page: 1, pageSize: 20, kind: 'plugins' });
    expect(page1.entries).toHaveLength(20);
    expect(page1.entries[0]).toEqual({
      source: 'modrinth',
      projectId: 'wg',
      name: 'WorldGuard',
      summary: 'Protects regions',
      author: 'sk89q',
      icon: 'https://cdn.modrinth.com/icon.png',
      downloads: 1000,
      gameVersions: ['1.20.4', '1.21'],
      installed: false,
    });
    // Only https icons are passed on.
    expect(page1.entries[1].icon).toBeNull();
    const page2 = (await send('GET', `/v1/server/${id}/plugins/catalogue?source=modrinth&q=guard&page=2`, cookie)).json().result;
    expect(page2.entries).toHaveLength(3);

    const installed = (
      await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'install-project', source: 'modrinth', projectId: 'wg' })
    ).json();
    expect(installed.status, installed.message).toBe('SUCCESS');
    const wg = (installed.result.plugins as Installed[]).find((p) => p.id === 'modrinth:wg')!;
    // Asked for again by its slug: still one plugin, recorded under the catalogue's own id.
    const bySlug = (
      await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'install-project', source: 'modrinth', projectId: 'worldguard' })
    ).json();
    expect(bySlug.status, bySlug.message).toBe('SUCCESS');
    expect((bySlug.result.plugins as Installed[]).map((p) => p.id)).toEqual(['modrinth:wg']);
    expect(wg).toMatchObject({
      name: 'WorldGuard',
      version: '7.0.9',
      versionId: 'v709',
      enabled: true,
      file: 'worldguard-7.0.9.jar',
      sha256: null,
    });
    expect(wg.sha512).toBe(sha512(files['worldguard-7.0.9.jar']!));
    expect(readFileSync(folder('plugins', 'worldguard-7.0.9.jar')).equals(files['worldguard-7.0.9.jar']!)).toBe(true);
    expect(installed.result.updates).toEqual({});
    expect(
      (await send('GET', `/v1/server/${id}/plugins/catalogue?source=modrinth&q=guard`, cookie)).json().result.entries[0].installed,
    ).toBe(true);

    // The catalogue publishes 7.1.0: the page offers it; the update replaces the file exactly.
    worldguardNewest = '7.1.0';
    expect((await send('GET', `/v1/server/${id}/plugins`, cookie)).json().result.updates).toEqual({ 'modrinth:wg': '7.1.0' });
    const updated = (await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'update', id: 'modrinth:wg' })).json();
    expect(updated.status, updated.message).toBe('SUCCESS');
    expect((updated.result.plugins as Installed[])[0]).toMatchObject({ version: '7.1.0', versionId: 'v710', file: 'worldguard-7.1.0.jar' });
    expect(existsSync(folder('plugins', 'worldguard-7.0.9.jar'))).toBe(false);
    expect(existsSync(folder('plugins', 'worldguard-7.1.0.jar'))).toBe(true);
    expect((await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'update', id: 'modrinth:wg' })).json()).toMatchObject({
      status: 'INVALID_STATE',
      message: 'WorldGuard is already at its newest version.',
    });

    // Off: Java does not load a .jar.disabled. On again, then removed with its file.
    await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'disable', id: 'modrinth:wg' });
    expect(readdirSync(folder('plugins')).filter((f) => f.includes('worldguard'))).toEqual(['worldguard-7.1.0.jar.disabled']);
    await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'enable', id: 'modrinth:wg' });
    expect(existsSync(folder('plugins', 'worldguard-7.1.0.jar'))).toBe(true);
    const removed = (await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'remove', id: 'modrinth:wg' })).json().result;
    expect(removed.plugins).toEqual([]);
    expect(readdirSync(folder('plugins')).filter((f) => f.endsWith('.jar') || f.endsWith('.disabled'))).toEqual([]);

    const log = (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries as { action: string; target: string }[];
    expect(log.filter((e) => e.action.startsWith('plugin.')).map((e) => `${e.action} ${e.target}`)).toEqual([
      'plugin.remove WorldGuard',
      'plugin.enable WorldGuard',
      'plugin.disable WorldGuard',
      'plugin.update WorldGuard 7.1.0',
      'plugin.install WorldGuard 7.0.9',
      'plugin.install WorldGuard 7.0.9',
    ]);
  });

  it('lists the versions a project has for the server, installs the one chosen, and moves to another on request', async () => {
    const { cookie, id } = await ownerWithServer(t, 'javaver', { software: 'paper', version: '1.20.4' });
    worldguardNewest = '7.1.0';
    const listed = (await send('GET', `/v1/server/${id}/plugins/catalogue/versions?source=modrinth&projectId=wg`, cookie)).json();
    expect(listed.result).toEqual({
      versions: [
        {
          versionId: 'v710',
          version: '7.1.0',
          fileName: 'worldguard-7.1.0.jar',
          size: files['worldguard-7.1.0.jar']!.length,
          channel: 'release',
          published: '2026-09-01T12:00:00Z',
        },
        expect.objectContaining({ versionId: 'v709', version: '7.0.9', published: '2026-03-01T12:00:00Z' }),
      ],
      installedVersionId: null,
    });
    const change = async (body: object) => (await send('POST', `/v1/server/${id}/plugins`, cookie, body)).json();
    const older = await change({ action: 'install-project', source: 'modrinth', projectId: 'wg', versionId: 'v709' });
    expect(older.status, older.message).toBe('SUCCESS');
    expect(older.result.plugins[0]).toMatchObject({ version: '7.0.9', versionId: 'v709', file: 'worldguard-7.0.9.jar' });
    // The older one chosen: the newer is offered as an update.
    expect(older.result.updates).toEqual({ 'modrinth:wg': '7.1.0' });
    expect(
      (await send('GET', `/v1/server/${id}/plugins/catalogue/versions?source=modrinth&projectId=wg`, cookie)).json().result
        .installedVersionId,
    ).toBe('v709');
    expect(await change({ action: 'update', id: 'modrinth:wg', versionId: 'v709' })).toMatchObject({
      status: 'INVALID_STATE',
      message: 'WorldGuard 7.0.9 is already installed.',
    });
    expect(await change({ action: 'update', id: 'modrinth:wg', versionId: 'v-for-1.8' })).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'That version of WorldGuard is not one for Paper 1.20.4. Choose one from the list.',
    });
    const newer = await change({ action: 'update', id: 'modrinth:wg', versionId: 'v710' });
    expect(newer.result.plugins[0]).toMatchObject({ version: '7.1.0', file: 'worldguard-7.1.0.jar' });
    const folder = path.join(env.agent.dataDir, 'servers', id, 'plugins');
    expect(readdirSync(folder).filter((f) => f.endsWith('.jar'))).toEqual(['worldguard-7.1.0.jar']);
  });

  it('refuses what does not hold — no version, a hash mismatch, not a jar, a redirect elsewhere, a path for a name — leaving nothing in plugins/', async () => {
    const { cookie, id } = await ownerWithServer(t, 'javabad', { software: 'paper', version: '1.20.4' });
    const install = async (projectId: string) =>
      (await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'install-project', source: 'modrinth', projectId })).json();
    expect(await install('oldonly')).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'Project oldonly has no version for Paper 1.20.4.',
    });
    expect(await install('broken')).toMatchObject({
      status: 'INVALID_INPUT',
      message: expect.stringContaining('did not match its published hash'),
    });
    expect(await install('notajar')).toMatchObject({ status: 'INVALID_INPUT', message: expect.stringContaining('is not a Java plugin') });
    expect(await install('elsewhere')).toMatchObject({ status: 'INVALID_INPUT', message: expect.stringContaining('not a catalogue') });
    expect(await install('sneaky')).toMatchObject({ status: 'INVALID_INPUT', message: expect.stringContaining('not a plain .jar name') });
    expect(await install('missing')).toMatchObject({ status: 'NOT_FOUND' });
    const left = existsSync(path.join(env.agent.dataDir, 'servers', id, 'plugins'))
      ? readdirSync(path.join(env.agent.dataDir, 'servers', id, 'plugins')).filter((f) => f !== 'spawnpoint-plugins.json')
      : [];
    expect(left).toEqual([]);
    expect((await send('GET', `/v1/server/${id}/plugins`, cookie)).json().result.plugins).toEqual([]);

    // One plugin operation per server at a time: a second one while a download runs is refused, and the
    // first ends on its own terms (here more bytes than the catalogue declared), leaving nothing.
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const first = install('slow');
    await started;
    expect(await install('wg')).toMatchObject({
      status: 'INVALID_STATE',
      message: 'Another plugin change is still running on this server. Try again when it is done.',
    });
    slowResponse!.end('the rest');
    expect(await first).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'Project slow is larger than it should be, so it was not installed.',
    });
    expect((await send('GET', `/v1/server/${id}/plugins`, cookie)).json().result.plugins).toEqual([]);

    // The catalogue's own limits are said as they are.
    expect((await send('GET', `/v1/server/${id}/plugins/catalogue?source=modrinth&q=busy`, cookie)).json()).toMatchObject({
      status: 'RATE_LIMIT',
      message: 'Modrinth is busy right now. Try again in 30 seconds.',
    });
    expect((await send('GET', `/v1/server/${id}/plugins/catalogue?source=modrinth&q=slow`, cookie)).json()).toMatchObject({
      status: 'TEMPORARILY_DISABLED',
      message: 'Modrinth did not answer in time. Try again in a minute.',
    });
    // A redirect is not followed (to an address inside the network, say), and an answer of megabytes is not read whole.
    expect((await send('GET', `/v1/server/${id}/plugins/catalogue?source=modrinth&q=moved`, cookie)).json()).toMatchObject({
      status: 'TEMPORARILY_DISABLED',
      message: 'Modrinth answered 302. Try again in a minute.',
    });
    expect((await send('GET', `/v1/server/${id}/plugins/catalogue?source=modrinth&q=huge`, cookie)).json()).toMatchObject({
      status: 'TEMPORARILY_DISABLED',
      message: 'Modrinth answered in a way we do not understand. Try again later.',
    });
  }, 60_000);

  it("keeps an owner's own jar only if it is a plugin (a mod on Fabric), named from its descriptor; a renamed program or a bare zip leaves nothing", async () => {
    const { cookie, id } = await ownerWithServer(t, 'ownjar', { software: 'paper', version: '1.20.4' });
    const folder = (...parts: string[]) => path.join(env.agent.dataDir, 'servers', id, ...parts);
    const upload = async (serverId: string, fileName: string, bytes: Buffer, as = cookie) => {
      const form = multipart(fileName, bytes);
      const query = new URLSearchParams({ fileName, size: String(bytes.length) });
      return (
        await t.app.inject({
          method: 'POST',
          url: `/v1/server/${serverId}/plugins/jar?${query}`,
          headers: { cookie: as, ...form.headers },
          payload: form.payload,
        })
      ).json();
    };
    const plugin = zip({
      'plugin.yml': "name: Sign Shop\nversion: '2.4.1' # from the build\nmain: shop.Main\n",
      'shop/Main.class': 'bytes',
    });
    const uploaded = await upload(id, 'signshop.jar', plugin);
    expect(uploaded.status, uploaded.message).toBe('SUCCESS');
    expect(uploaded.result.plugins).toEqual([
      expect.objectContaining({
        id: 'signshop.jar',
        source: 'upload',
        name: 'Sign Shop',
        version: '2.4.1',
        folder: 'plugins',
        file: 'signshop.jar',
        enabled: true,
        sha256: sha256(plugin),
      }),
    ]);
    expect(readFileSync(folder('plugins', 'signshop.jar')).equals(plugin)).toBe(true);
    // Off and on as a catalogue jar is: by its name.
    await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'disable', id: 'signshop.jar' });
    expect(existsSync(folder('plugins', 'signshop.jar.disabled'))).toBe(true);
    await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'enable', id: 'signshop.jar' });
    expect(existsSync(folder('plugins', 'signshop.jar'))).toBe(true);

    const notPlugin = 'is not a plugin: a plugin is a .jar that holds plugin.yml or paper-plugin.yml, and this file does not.';
    expect(await upload(id, 'evil.jar', Buffer.from('MZ\u0090\u0000 a Windows program renamed'))).toMatchObject({
      status: 'INVALID_INPUT',
      message: `evil.jar ${notPlugin} Nothing was installed.`,
    });
    expect(await upload(id, 'bare.jar', zip({ 'readme.txt': 'no descriptor here' }))).toMatchObject({
      status: 'INVALID_INPUT',
      message: `bare.jar ${notPlugin} Nothing was installed.`,
    });
    expect(await upload(id, '../escape.jar', plugin)).toMatchObject({ status: 'INVALID_INPUT' });
    expect(await upload(id, 'empty.jar', Buffer.alloc(0))).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { size: 'The plugin file is empty.' },
    });
    // Nothing half-written: only the kept jar and the record.
    expect(readdirSync(folder('plugins')).sort()).toEqual(['signshop.jar', 'spawnpoint-plugins.json']);

    // Fabric takes mods into mods/, named from fabric.mod.json; a Bukkit plugin is no mod.
    const fabric = await ownerWithServer(t, 'ownmod', { software: 'fabric', version: '1.20.4' });
    const mod = zip({ 'fabric.mod.json': JSON.stringify({ id: 'lithium', name: 'Lithium', version: '0.12.1' }) });
    const modded = await upload(fabric.id, 'lithium.jar', mod, fabric.cookie);
    expect(modded.status, modded.message).toBe('SUCCESS');
    expect(modded.result.plugins[0]).toMatchObject({ name: 'Lithium', version: '0.12.1', folder: 'mods' });
    expect(existsSync(path.join(env.agent.dataDir, 'servers', fabric.id, 'mods', 'lithium.jar'))).toBe(true);
    expect(await upload(fabric.id, 'signshop.jar', plugin, fabric.cookie)).toMatchObject({
      status: 'INVALID_INPUT',
      message:
        'signshop.jar is not a Fabric mod: a Fabric mod is a .jar that holds fabric.mod.json, and this file does not. Nothing was installed.',
    });
  });

  it('installs a Paper plugin from Hangar checked against its SHA-256; the built-in runtime is offered no Java catalogue', async () => {
    const { cookie, id } = await ownerWithServer(t, 'hangar', { software: 'paper', version: '1.20.4' });
    const found = (await send('GET', `/v1/server/${id}/plugins/catalogue?source=hangar&q=chunk`, cookie)).json().result;
    expect(found.entries).toEqual([
      expect.objectContaining({ source: 'hangar', projectId: 'Chunky', author: 'pop4959', downloads: 42, gameVersions: ['1.20-1.21.4'] }),
    ]);
    const installed = (
      await send('POST', `/v1/server/${id}/plugins`, cookie, { action: 'install-project', source: 'hangar', projectId: 'Chunky' })
    ).json();
    expect(installed.status, installed.message).toBe('SUCCESS');
    expect(installed.result.plugins[0]).toMatchObject({
      id: 'hangar:Chunky',
      version: '1.4',
      sha256: sha256(files['chunky-1.4.jar']!),
      sha512: null,
    });

    const squid = await ownerWithServer(t, 'squidjava');
    expect((await send('GET', `/v1/server/${squid.id}/plugins/catalogue?source=modrinth`, squid.cookie)).json()).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'Modrinth has nothing for Built-in (flying-squid) servers.',
    });
  });
});
