import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compiledLauncher } from './compile-launcher.ts';
import { launcherSettingsSchema } from './launcher-settings.ts';

describe('the built-in runtime launcher as the node runs it', () => {
  it('is one small file without the full schema library, loaded at every start and wake', async () => {
    const code = await readFile(await compiledLauncher(), 'utf8');
    // With the contracts' zod schemas it was ≈ 636 KB and ≈ 20 ms of every start (bench/game.ts); the
    // launcher imports only zod-free contracts modules and checks its settings with zod's small build.
    expect(code.length).toBeLessThan(150_000);
    // zod's full build: its class API and every language's messages (the launcher has English only).
    expect(code).not.toContain('"ZodError"');
    expect(code).toContain('Too big: expected');
    expect(code).not.toContain('Trop grand');
  });

  it('still refuses settings the agent did not make', () => {
    const settings = {
      port: 25565,
      host: '127.0.0.1',
      version: '1.21.4',
      motd: 'hi',
      maxPlayers: 10,
      onlineMode: false,
      gameMode: 0,
      difficulty: 1,
      worldFolder: 'world',
      flat: false,
      seed: null,
      viewDistance: 10,
      whiteList: false,
      pvp: true,
      favicon: null,
      plugins: [],
      uploadedPlugins: ['homes-extra.js'],
    };
    expect(launcherSettingsSchema.safeParse(settings).success).toBe(true);
    for (const bad of [
      { worldFolder: '../other-tenant/world' },
      { worldFolder: '/etc' },
      { port: 70_000 },
      { gameMode: 1.5 },
      { favicon: 'data:text/html;base64,PHNjcmlwdD4=' },
      { uploadedPlugins: ['../../agent.js'] },
      { uploadedPlugins: ['plugin.jar'] },
      { viewDistance: 64 },
    ])
      expect(launcherSettingsSchema.safeParse({ ...settings, ...bad }).success, JSON.stringify(bad)).toBe(false);
    // The small build carries no messages of its own: the console says why in English all the same.
    expect(launcherSettingsSchema.safeParse({ ...settings, viewDistance: 64 }).error?.issues[0]?.message).toMatch(/^Too big/);
  });
});
