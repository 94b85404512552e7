import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultProperties } from '../properties.ts';
import type { Runtime } from './types.ts';

const launcher = path.join(import.meta.dirname, 'flying-squid-launcher.ts');
const tsxLoader = import.meta.resolve('tsx');

/** The built-in runtime: flying-squid in a process of its own, through our launcher. */
export const flyingSquidRuntime: Runtime = {
  stopCommand: 'stop',
  readyPattern: /The server is ready for players/,

  async install(dir, spec) {
    const file = path.join(dir, 'server.properties');
    if (!existsSync(file)) await writeFile(file, defaultProperties({ motd: spec.motd, maxPlayers: spec.maxPlayers }));
  },

  plan(dir, spec, bindHost) {
    return {
      command: process.execPath,
      args: ['--import', tsxLoader, `--max-old-space-size=${Math.max(128, spec.memoryMb)}`, launcher],
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        FORCE_COLOR: '1',
        SPAWNPOINT_PORT: String(spec.port),
        SPAWNPOINT_HOST: bindHost,
        SPAWNPOINT_VERSION: spec.version,
      },
    };
  },
};
