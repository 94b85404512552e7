import { Readable } from 'node:stream';
import { nodeRuntimePaths } from '../cage/cage.ts';
import { heapMb } from '../cage/cgroups.ts';
import { defaultProperties } from '../server/properties.ts';
import { compiledLauncher } from './compile-launcher.ts';
import { effectiveMaxPlayers } from './game-settings.ts';
import { launcherSettings } from './launcher-settings.ts';
import type { Runtime } from './types.ts';

/** The built-in runtime: flying-squid in a process of its own, through our launcher compiled to JavaScript. */
export const flyingSquidRuntime: Runtime = {
  stopCommand: 'stop',
  readyPattern: /The server is ready for players/,

  async install(sandbox, spec) {
    const text = defaultProperties({ motd: spec.motd, maxPlayers: spec.maxPlayers });
    // Created only when missing (never overwritten), through the sandbox: a planted link is refused, not followed.
    await sandbox.writeFrom('server.properties', Readable.from([Buffer.from(text)]), { overwrite: false }).catch((err: unknown) => {
      if ((err as { code?: string }).code !== 'INVALID_STATE') throw err;
    });
  },

  writtenFolders: (settings) => {
    const world = settings.levelName.split('/');
    // plugins/: the first-party plugins keep their data there (homes, the spawn).
    return [[], world, [...world, 'region'], [...world, 'playerdata'], ['logs'], ['plugins'], ['plugins', 'homes'], ['plugins', 'spawn']];
  },

  async plan({ dir, spec, bindHost, settings }) {
    const settingsJson = JSON.stringify(
      launcherSettings(
        settings.properties,
        {
          port: spec.port,
          host: bindHost,
          version: spec.version,
          worldFolder: settings.levelName,
          favicon: settings.favicon,
          plugins: settings.plugins.builtin,
          uploadedPlugins: settings.plugins.uploaded,
        },
        effectiveMaxPlayers(settings.properties, spec.maxPlayers),
      ),
    );
    const launcher = await compiledLauncher();
    return {
      command: process.execPath,
      args: [launcher],
      // The heap stays below the memory limit, which also holds Node's own memory (see nodeHeapMb).
      nodeHeapMb: heapMb(spec.memoryMb),
      cwd: dir,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', FORCE_COLOR: '1', SPAWNPOINT_SETTINGS: settingsJson },
      // The compiled launcher and the packages it imports (flying-squid and its dependencies).
      readOnly: await nodeRuntimePaths(launcher),
    };
  },
};
