import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultProperties } from '../properties.ts';
import type { Runtime, RuntimeProcess } from './types.ts';

const launcher = path.join(import.meta.dirname, 'flying-squid-launcher.ts');
const tsxLoader = import.meta.resolve('tsx');

/** The built-in runtime: flying-squid in a child process of its own, through our launcher. */
export const flyingSquidRuntime: Runtime = {
  stopCommand: 'stop',

  async install(dir, spec) {
    const file = path.join(dir, 'server.properties');
    if (!existsSync(file)) await writeFile(file, defaultProperties({ motd: spec.motd, maxPlayers: spec.maxPlayers }));
  },

  start(dir, spec, bindHost) {
    const child = fork(launcher, [], {
      cwd: dir,
      execArgv: ['--import', tsxLoader, `--max-old-space-size=${Math.max(128, spec.memoryMb)}`],
      env: {
        PATH: process.env.PATH,
        FORCE_COLOR: '1',
        SPAWNPOINT_PORT: String(spec.port),
        SPAWNPOINT_HOST: bindHost,
        SPAWNPOINT_VERSION: spec.version,
      },
      stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
    });
    const proc: RuntimeProcess = {
      pid: child.pid,
      send: (command) => child.stdin?.write(`${command}\n`),
      kill: (signal) => child.kill(signal),
      onOutput: (listener) => {
        child.stdout?.on('data', listener);
        child.stderr?.on('data', listener);
      },
      onReady: (listener) => child.on('message', (m: { type?: string }) => m?.type === 'ready' && listener()),
      onPlayers: (listener) =>
        child.on('message', (m: { type?: string; list?: unknown }) => {
          if (m?.type === 'players' && Array.isArray(m.list)) listener(m.list.filter((n): n is string => typeof n === 'string'));
        }),
      onExit: (listener) => child.on('exit', listener),
    };
    return proc;
  },
};
