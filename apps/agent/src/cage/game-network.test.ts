import { execFile } from 'node:child_process';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test-support/free-port.ts';
import { NETNS_DIR, nodeResolvers, prepareGameNetwork, type GameNetwork } from './game-network.ts';

const run = promisify(execFile);
const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** The settings every agent of this machine uses, so the shared table stays the same for the other suites. */
async function network(): Promise<GameNetwork> {
  const prepared = await prepareGameNetwork({ subnet: '10.189.0.0/16', bindHost: '0.0.0.0', allow: [], dns: await nodeResolvers() });
  if ('problem' in prepared) throw new Error(prepared.problem);
  return prepared;
}

const linkExists = (name: string) =>
  run('ip', ['link', 'show', name]).then(
    () => true,
    () => false,
  );

describe("a game's network across restarts", () => {
  it('is made again at once after it is released, as a restart does, and leaves no link behind', async () => {
    const games = await network();
    const runDir = await mkdtemp(path.join(tmpdir(), 'spawnpoint-netns-'));
    folders.push(runDir);
    const port = await freePort();
    // The kernel frees a deleted namespace (and the links in it) later, once nothing holds it: here a handle
    // on it stands for that delay, which a busy node stretches, while a restart takes the same slot at once.
    for (let round = 0; round < 3; round++) {
      const lease = await games.attach(port, runDir);
      const held = await open(path.join(NETNS_DIR, lease.name), 'r');
      try {
        await games.release(runDir);
        expect(await linkExists(lease.name)).toBe(false);
      } finally {
        await held.close();
      }
    }
    const last = await games.attach(port, runDir);
    await games.release(runDir);
    expect(await linkExists(last.name)).toBe(false);
  });
});

describe('a lease file that does not fit', () => {
  it('is not acted on: its name, port and address never reach ip or nft, and the game it names keeps its network', async () => {
    const games = await network();
    const [ownDir, otherDir] = [
      await mkdtemp(path.join(tmpdir(), 'spawnpoint-netns-')),
      await mkdtemp(path.join(tmpdir(), 'spawnpoint-netns-')),
    ];
    folders.push(ownDir, otherDir);
    const port = await freePort();
    const lease = await games.attach(port, ownDir);
    try {
      // Another run folder's lease, damaged so its port carries nft commands and its name is the running game's.
      const hostile = { ...lease, port: `${port} }\ndelete table inet spawnpoint\nadd element inet spawnpoint game_tcp { ${port}` };
      await writeFile(path.join(otherDir, 'network.json'), JSON.stringify(hostile));
      await games.release(otherDir);
      expect(await linkExists(lease.name)).toBe(true);
      const { stdout } = await run('nft', ['list', 'table', 'inet', 'spawnpoint']);
      expect(stdout).toContain(lease.gameAddress);
      // A lease that is not JSON at all is no lease either.
      await writeFile(path.join(otherDir, 'network.json'), '{ not json');
      await expect(games.release(otherDir)).resolves.toBeUndefined();
      expect(await readFile(path.join(otherDir, 'network.json'), 'utf8')).toBe('{ not json');
    } finally {
      await games.release(ownDir);
    }
    expect(await linkExists(lease.name)).toBe(false);
  });
});
