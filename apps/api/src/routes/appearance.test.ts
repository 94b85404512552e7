import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { agentEndpoints, faviconOf, SERVER_ICON_FILE, serverIconProblem } from '@spawnpoint/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePng } from '../../../../test-support/png.ts';
import { until } from '../../../../test-support/until.ts';
import { connectToApi } from '../../../proxy/src/api-link.ts';
import { RouteTable } from '../../../proxy/src/route-table.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester, type Send } from '../test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;

beforeAll(async () => {
  agent = await prepareAgent();
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  agent.start(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
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

describe('appearance', () => {
  it('saves the MOTD with § codes in server.properties and refuses codes that do not exist', async () => {
    const { cookie, id } = await ownerWithServer(t, 'looks');
    const appearance = `/v1/server/${id}/appearance`;
    expect((await send('GET', appearance, cookie)).json().result).toMatchObject({ icon: null });

    const saved = await send('PUT', appearance, cookie, { motd: '&aWelcome &lhome\n&#ff8800Tom & Jerry' });
    expect(saved.json().result).toMatchObject({ motd: '§aWelcome §lhome\n§x§f§f§8§8§0§0Tom & Jerry', icon: null });
    const file = (await send('GET', `/v1/server/${id}/files/content?path=/server.properties`, cookie)).json().result.content as string;
    expect(file).toContain('motd=\\u00A7aWelcome \\u00A7lhome\\n\\u00A7x');
    // The Properties page reads the same value.
    expect((await send('GET', `/v1/server/${id}/properties`, cookie)).json().result.motd).toBe(
      '§aWelcome §lhome\n§x§f§f§8§8§0§0Tom & Jerry',
    );

    const bad = (await send('PUT', appearance, cookie, { motd: '&zoops' })).json();
    expect(bad).toMatchObject({ status: 'INVALID_INPUT', fields: { motd: '&z is not a formatting code (0–9, a–f, k–o, r or #rrggbb).' } });
    const long = (await send('PUT', appearance, cookie, { motd: 'x'.repeat(60) })).json();
    expect(long).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { motd: 'Line 1 has 60 characters; at most 59 fit in the server list.' },
    });
  });

  it('takes a 64×64 PNG icon, refuses anything else with the reason, and removes it', async () => {
    const { cookie, id } = await ownerWithServer(t, 'icons');
    const icon = `/v1/server/${id}/appearance/icon`;
    const png = fakePng(64, 64);
    expect((await send('PUT', icon, cookie, { image: png.toString('base64') })).json().result.icon).toBe(faviconOf(png));
    expect((await send('GET', `/v1/server/${id}/appearance`, cookie)).json().result.icon).toBe(faviconOf(png));

    // Any other picture is cut to a square and scaled to 64×64, then saved as PNG.
    const photo = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .jpeg()
      .toBuffer();
    const scaled = (await send('PUT', icon, cookie, { image: photo.toString('base64') })).json();
    expect(scaled.status, scaled.message).toBe('SUCCESS');
    const stored = Buffer.from((scaled.result.icon as string).replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(serverIconProblem(stored)).toBeNull();
    const pixel = await sharp(stored).raw().toBuffer({ resolveWithObject: true });
    expect([pixel.info.width, pixel.info.height]).toEqual([64, 64]);
    expect([...pixel.data.subarray(0, 3)].map((c) => Math.round(c / 10))).toEqual([20, 4, 4]);

    // Not pictures: a renamed program, an SVG (never rendered), a picture far too large to decode.
    const exe = (await send('PUT', icon, cookie, { image: Buffer.from('MZ\x90\x00this is a renamed program').toString('base64') })).json();
    expect(exe).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { image: 'This is not a picture: choose a PNG, JPEG, GIF or WebP image.' },
    });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64"/></svg>');
    expect((await send('PUT', icon, cookie, { image: svg.toString('base64') })).json()).toMatchObject({ status: 'INVALID_INPUT' });
    const vast = await sharp({ create: { width: 5000, height: 10, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    expect((await send('PUT', icon, cookie, { image: vast.toString('base64') })).json()).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'The picture may be at most 4096×4096 pixels.',
    });
    const huge = (await send('PUT', icon, cookie, { image: Buffer.alloc(3 * 1024 * 1024).toString('base64') })).json();
    expect(huge.status).toBe('INVALID_INPUT');
    // Back to the first icon, kept byte for byte.
    expect((await send('PUT', icon, cookie, { image: png.toString('base64') })).json().result.icon).toBe(faviconOf(png));
    // The refused ones left the saved icon as it was.
    expect((await send('GET', `/v1/server/${id}/appearance`, cookie)).json().result.icon).toBe(faviconOf(png));

    expect((await send('DELETE', icon, cookie)).json().result.icon).toBeNull();
    expect((await send('DELETE', icon, cookie)).json().status).toBe('SUCCESS');

    // The public face of the server changes with a trace: the owner sees who changed what (refusals: nothing).
    await send('PUT', `/v1/server/${id}/appearance`, cookie, { motd: 'Hello\nthere' });
    await send('POST', `/v1/server/${id}/appearance`, cookie, { publicListing: true });
    await send('PUT', `/v1/server/${id}/properties`, cookie, {});
    const log = (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries as { action: string; target: string }[];
    expect(log.map((e) => [e.action, e.target])).toEqual([
      ['listing.update', 'listed publicly'],
      ['appearance.update', 'motd: Hello / there'],
      ['appearance.update', 'icon: removed'],
      ['appearance.update', 'icon: uploaded'],
      ['appearance.update', 'icon: uploaded'],
      ['appearance.update', 'icon: uploaded'],
    ]);
  });

  // A sleeping server is answered by the join proxy: its icon must stay beside its entry in the list.
  it("gives the join proxies the server's icon, and reads it again from the folder when the server stops", async () => {
    const table = new RouteTable();
    const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };
    const apiUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const link = connectToApi({ apiUrls: [apiUrl], token: t.config.proxyToken, table, log: quiet });
    try {
      const { cookie, id } = await ownerWithServer(t, 'proxyicon');
      const name = (await send('GET', `/v1/server/${id}`, cookie)).json().result.name as string;
      await until(
        () => table.get(name),
        (route) => route?.state === 'offline',
      );
      expect(table.get(name)?.icon).toBeNull();

      const png = fakePng(64, 64);
      await send('PUT', `/v1/server/${id}/appearance/icon`, cookie, { image: png.toString('base64') });
      await until(
        () => table.get(name)?.icon,
        (icon) => icon === faviconOf(png),
      );
      // The MOTD too: its first line heads the proxy's answer while the server sleeps.
      expect((await send('PUT', `/v1/server/${id}/appearance`, cookie, { motd: '&6Gold Hills\n&7come in' })).json().status).toBe('SUCCESS');
      await until(
        () => table.get(name)?.motd,
        (motd) => motd === '§6Gold Hills\n§7come in',
      );
      // A proxy that connects later gets both with the whole table.
      const later = new RouteTable();
      const second = connectToApi({ apiUrls: [apiUrl], token: t.config.proxyToken, table: later, log: quiet });
      try {
        await until(
          () => later.get(name),
          (route) => route?.icon === faviconOf(png) && route.motd === '§6Gold Hills\n§7come in',
        );
      } finally {
        second.close();
      }

      // Replaced in the folder while the server ran (the file manager, a plugin): shown once it stopped.
      expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
      await until(
        () => table.get(name)?.state,
        (state) => state === 'online',
      );
      const other = Buffer.from(png);
      other[25] = 2; // another colour type: other bytes, still a 64×64 PNG
      await t.ctx.game.nodes.send(
        'test-node',
        agentEndpoints.fileWrite,
        { params: { serverId: id }, query: { path: `/${SERVER_ICON_FILE}`, overwrite: 'true', size: other.length } },
        other,
      );
      expect((await send('POST', `/v1/server/${id}/stop`, cookie)).json().status).toBe('SUCCESS');
      await until(
        () => table.get(name),
        (route) => route?.state === 'offline' && route.icon === faviconOf(other),
      );
    } finally {
      link.close();
    }
  });

  it("turns on the PROXY protocol header for a Java server's route, and refuses it for the built-in runtime", async () => {
    const table = new RouteTable();
    const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };
    const apiUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const link = connectToApi({ apiUrls: [apiUrl], token: t.config.proxyToken, table, log: quiet });
    try {
      const paper = await ownerWithServer(t, 'proxyv2', { software: 'paper', version: '1.20.4' });
      const name = (await send('GET', `/v1/server/${paper.id}`, paper.cookie)).json().result.name as string;
      expect((await send('GET', `/v1/server/${paper.id}`, paper.cookie)).json().result.proxyProtocol).toBe(false);
      await until(
        () => table.get(name),
        (route) => route?.proxyProtocol === false,
      );
      const on = (await send('POST', `/v1/server/${paper.id}/proxy-protocol`, paper.cookie, { enabled: true })).json();
      expect(on.result.proxyProtocol).toBe(true);
      await until(
        () => table.get(name)?.proxyProtocol,
        (value) => value === true,
      );
      const squid = await ownerWithServer(t, 'proxysq');
      expect((await send('GET', `/v1/server/${squid.id}`, squid.cookie)).json().result.proxyProtocol).toBeNull();
      expect((await send('POST', `/v1/server/${squid.id}/proxy-protocol`, squid.cookie, { enabled: true })).json()).toMatchObject({
        status: 'INVALID_STATE',
        message: 'The built-in runtime does not read PROXY protocol headers; only Java servers can.',
      });
    } finally {
      link.close();
    }
  });

  // server-icon.png is the tenant's file, read by the API on its own at every stop: whatever is put there
  // must give "no icon", at once, never a hang, a file from outside the folder, or a huge read.
  it('shows no icon for a hostile server-icon.png (link out, pipe, folder, oversized) and answers at once', async () => {
    const { cookie, id } = await ownerWithServer(t, 'iconattack');
    const folder = path.join(agent.dataDir, 'servers', id);
    const icon = path.join(folder, SERVER_ICON_FILE);
    const outside = path.join(os.tmpdir(), `spawnpoint-outside-icon-${id}.png`);
    await writeFile(outside, fakePng(64, 64));
    const plants: [string, () => Promise<unknown>][] = [
      ['a link to a valid icon outside the folder', () => symlink(outside, icon)],
      ['a named pipe nobody writes to', async () => execFileSync('mkfifo', [icon])],
      ['a folder', () => mkdir(path.join(icon, 'inner'), { recursive: true })],
      ['a PNG head with 8 MiB behind it', () => writeFile(icon, Buffer.concat([fakePng(64, 64), Buffer.alloc(8 * 1024 * 1024)]))],
    ];
    try {
      for (const [what, plant] of plants) {
        await rm(icon, { recursive: true, force: true });
        await plant();
        const res = (await send('GET', `/v1/server/${id}/appearance`, cookie)).json();
        expect({ what, status: res.status, icon: res.result?.icon }).toEqual({ what, status: 'SUCCESS', icon: null });
      }
    } finally {
      await rm(outside, { force: true });
    }
  });
});
