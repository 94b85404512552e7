import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithAgent, ownerWithServer, requester, uniqueServerName, verifiedOwner, type Send } from '../test/build-test-app.ts';

/** The Plugins page's API with a real agent: the record lands in the server folder, through the node. */
let env: Awaited<ReturnType<typeof buildTestAppWithAgent>>;
let t: Awaited<ReturnType<typeof buildTestAppWithAgent>>['t'];
const send: Send = (...args) => requester(t.app)(...args);

beforeAll(async () => {
  env = await buildTestAppWithAgent({ RATE_LIMIT_FACTOR: '3' });
  t = env.t;
});
afterAll(async () => {
  await env.cleanup();
});

type Listed = {
  plugins: { id: string; enabled: boolean; settings: Record<string, unknown> }[];
  catalogue: { id: string; installed: boolean; compatible: boolean }[];
  catalogueAvailable: boolean;
  uploadsAllowed: boolean;
  restartNeeded: boolean;
};

describe('plugins', () => {
  it('answers for a server the moment its create answered (the node has its folder by then)', async () => {
    const cookie = await verifiedOwner(t, 'fresh');
    const created = (await send('POST', '/v1/server/create', cookie, { serverName: uniqueServerName('fresh') })).json();
    expect(created.status).toBe('SUCCESS');
    const id = created.result.serverId as string;
    const [plugins, files] = await Promise.all([
      send('GET', `/v1/server/${id}/plugins`, cookie),
      send('GET', `/v1/server/${id}/files/list?path=/`, cookie),
    ]);
    expect(plugins.json().status, plugins.json().message).toBe('SUCCESS');
    expect(files.json().status, files.json().message).toBe('SUCCESS');
  });

  it('lists and searches the catalogue, installs, configures, turns off and removes a plugin, and logs each change', async () => {
    const { cookie, id } = await ownerWithServer(t, 'plugins');
    const url = `/v1/server/${id}/plugins`;
    const first = (await send('GET', url, cookie)).json().result as Listed;
    expect(first.plugins).toEqual([]);
    expect(first.catalogueAvailable).toBe(true);
    expect(first.catalogue.map((p) => p.id)).toEqual(['welcome', 'homes', 'tpa', 'kits', 'broadcasts', 'spawn']);
    expect(first.catalogue.every((p) => p.compatible && !p.installed)).toBe(true);
    // Search looks at names, summaries and commands.
    expect(((await send('GET', `${url}?q=sethome`, cookie)).json().result as Listed).catalogue.map((p) => p.id)).toEqual(['homes']);
    expect(((await send('GET', `${url}?q=nothing%20like%20this`, cookie)).json().result as Listed).catalogue).toEqual([]);

    const installed = (await send('POST', url, cookie, { action: 'install', id: 'homes' })).json();
    expect(installed.status).toBe('SUCCESS');
    expect((installed.result as Listed).plugins).toEqual([
      expect.objectContaining({ id: 'homes', enabled: true, settings: { maxHomes: 3 } }),
    ]);
    expect((installed.result as Listed).catalogue.find((p) => p.id === 'homes')?.installed).toBe(true);
    // The record is a file of the server folder, seen in the file manager.
    const record = (await send('GET', `/v1/server/${id}/files/content?path=/plugins/spawnpoint-plugins.json`, cookie)).json();
    expect(record.result.content).toContain('"id": "homes"');

    // Settings are checked field by field and named on the field.
    expect((await send('POST', url, cookie, { action: 'settings', id: 'homes', settings: { maxHomes: 99 } })).json()).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { 'settings.maxHomes': 'At most 20.' },
    });
    await send('POST', url, cookie, { action: 'install', id: 'kits' });
    expect(
      (
        await send('POST', url, cookie, { action: 'settings', id: 'kits', settings: { kits: ['starter stone_sword'], cooldownMinutes: 0 } })
      ).json(),
    ).toMatchObject({ status: 'INVALID_INPUT', fields: { 'settings.kits': expect.stringContaining('is not "name: item count') } });
    const saved = (await send('POST', url, cookie, { action: 'settings', id: 'homes', settings: { maxHomes: 5 } })).json();
    expect((saved.result as Listed).plugins.find((p) => p.id === 'homes')?.settings).toEqual({ maxHomes: 5 });

    // Twice, and one that does not exist: clear errors, nothing changed.
    expect((await send('POST', url, cookie, { action: 'install', id: 'homes' })).json()).toMatchObject({
      status: 'INVALID_STATE',
      message: 'Homes is already installed.',
    });
    expect((await send('POST', url, cookie, { action: 'install', id: 'worldedit' })).json().status).toBe('INVALID_INPUT');

    const off = (await send('POST', url, cookie, { action: 'disable', id: 'homes' })).json().result as Listed;
    expect(off.plugins.find((p) => p.id === 'homes')?.enabled).toBe(false);
    // Not running: nothing to restart.
    expect(off.restartNeeded).toBe(false);
    const removed = (await send('POST', url, cookie, { action: 'remove', id: 'kits' })).json().result as Listed;
    expect(removed.plugins.map((p) => p.id)).toEqual(['homes']);

    const log = (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries as { action: string; target: string }[];
    expect(log.filter((e) => e.action.startsWith('plugin.')).map((e) => `${e.action} ${e.target}`)).toEqual([
      'plugin.remove Kits',
      'plugin.disable Homes',
      'plugin.settings Homes',
      'plugin.install Kits',
      'plugin.install Homes',
    ]);
  });

  it("takes the owner's own .js plugin and refuses a binary, a path and a file too large", async () => {
    const { cookie, id } = await ownerWithServer(t, 'ownplugin');
    const url = `/v1/server/${id}/plugins/upload`;
    const code = Buffer.from("module.exports.server = (serv) => serv.info('mine')\n");
    const ok = (await send('POST', url, cookie, { fileName: 'mine.js', content: code.toString('base64') })).json();
    expect(ok.status, ok.message).toBe('SUCCESS');
    expect((ok.result as Listed).uploadsAllowed).toBe(true);
    expect((ok.result as Listed).plugins).toEqual([expect.objectContaining({ id: 'mine.js', enabled: true })]);

    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    expect((await send('POST', url, cookie, { fileName: 'image.js', content: png.toString('base64') })).json()).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'This is not a JavaScript file: it holds binary data.',
    });
    expect((await send('POST', url, cookie, { fileName: '../../x.js', content: code.toString('base64') })).json()).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { fileName: expect.stringContaining('a .js file') },
    });
    const big = Buffer.alloc(600 * 1024, 'a').toString('base64');
    expect((await send('POST', url, cookie, { fileName: 'big.js', content: big })).json()).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { content: 'A plugin file is at most 512 KiB.' },
    });
    const listed = (await send('GET', `/v1/server/${id}/plugins`, cookie)).json().result as Listed;
    expect(listed.plugins.map((p) => p.id)).toEqual(['mine.js']);
  });
});
