import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startVendorStub, type VendorStub } from '../../../../test-support/vendor-stub.ts';
import { SoftwareVersions } from './software-versions.ts';

let stub: VendorStub;
let dir: string;
const mirrorsAt = (url: string) => ({ paper: url, purpur: url, mojang: url, fabric: url });

beforeAll(async () => {
  stub = await startVendorStub(['1.21.4', '1.20.4']);
});
afterAll(async () => {
  await stub.close();
});
afterEach(async () => {
  stub.versions = ['1.21.4', '1.20.4'];
  stub.failWith = null;
  if (dir) await rm(dir, { recursive: true, force: true });
});

const fresh = async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-versions-')));

/** A vendor that answers every request with `handler` (a broken or hostile one). */
async function vendor(handler: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('software versions from the vendors', () => {
  it('offers each vendor’s releases newest first, never a snapshot or pre-release, and a new release once published', async () => {
    const versions = new SoftwareVersions(await fresh(), mirrorsAt(stub.url));
    await versions.refresh();
    const offered = await versions.offered();
    for (const software of ['paper', 'purpur', 'vanilla', 'fabric'] as const)
      expect(offered[software], software).toEqual(['1.21.4', '1.20.4']);
    // Apart: the previews each vendor lists ahead of its newest release (Mojang's and Fabric's snapshot, Paper's
    // pre-release), for an owner who asks for them.
    expect(offered.previews).toEqual({ paper: ['1.21.5-pre1'], purpur: [], vanilla: ['99w01a'], fabric: ['99w01a'] });

    // The vendor publishes a release (and the year-numbered ones sort after 1.21.x) while the node runs.
    stub.versions = ['26.1', '1.21.11', '1.21.4', '1.20.4'];
    await versions.refresh();
    expect((await versions.offered()).vanilla).toEqual(['26.1', '1.21.11', '1.21.4', '1.20.4']);
  });

  it('keeps the last list when a vendor is down, and reads it from disk after a restart while it still is', async () => {
    const cacheDir = await fresh();
    const versions = new SoftwareVersions(cacheDir, mirrorsAt(stub.url));
    await versions.refresh();
    stub.failWith = 503;
    stub.versions = ['1.21.5'];
    await versions.refresh();
    expect((await versions.offered()).paper).toEqual(['1.21.4', '1.20.4']);
    const restarted = new SoftwareVersions(cacheDir, mirrorsAt(stub.url));
    await restarted.refresh();
    expect((await restarted.offered()).fabric).toEqual(['1.21.4', '1.20.4']);
  });

  it('refuses a vendor answer that redirects, is not its shape, lists no release or is too large; the cached list stays', async () => {
    const cacheDir = await fresh();
    const good = new SoftwareVersions(cacheDir, mirrorsAt(stub.url));
    await good.refresh();
    // Where the redirect leads, the list differs: following it would show.
    stub.versions = ['1.21.9'];
    const answers: RequestListener[] = [
      (_req, res) => void res.writeHead(302, { location: `${stub.url}/v2/purpur` }).end(),
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"versions": 7}'),
      (_req, res) => void res.writeHead(200).end('not json'),
      (_req, res) => void res.writeHead(200).end(JSON.stringify({ versions: ['25w14a', '1.21.5-pre1'] })),
      (_req, res) => void res.writeHead(200).end(`{"versions":["${'1'.repeat(9 * 1024 * 1024)}"]}`),
    ];
    for (const handler of answers) {
      const bad = await vendor(handler);
      const versions = new SoftwareVersions(cacheDir, mirrorsAt(bad.url));
      await versions.refresh();
      expect((await versions.offered()).purpur).toEqual(['1.21.4', '1.20.4']);
      await bad.close();
    }
  });

  it('offers a version whose jar the node already holds, even one its vendor no longer lists', async () => {
    const cacheDir = await fresh();
    await mkdir(path.join(cacheDir, 'paper'), { recursive: true });
    await writeFile(path.join(cacheDir, 'paper', '1.19.4.jar'), 'jar');
    await writeFile(path.join(cacheDir, 'paper', 'notes.txt'), 'not a jar');
    const versions = new SoftwareVersions(cacheDir, mirrorsAt(stub.url));
    await versions.refresh();
    expect((await versions.offered()).paper).toEqual(['1.21.4', '1.20.4', '1.19.4']);
  });
});
