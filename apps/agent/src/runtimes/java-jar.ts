import { existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultProperties, updateProperties } from '../properties.ts';
import type { Runtime } from './types.ts';

/**
 * Java servers (Paper, Vanilla, …): `java -Xmx… -jar server.jar nogui` in the server folder, the jar taken
 * from the node's software cache at `<softwareDir>/<software>/<version>.jar`. Filling that cache from the
 * vendors' download APIs (with checksums) is the operator's job; this machine cannot download jars.
 */
export function javaJarRuntime(softwareDir: string): Runtime {
  return {
    stopCommand: 'stop',
    // Vanilla and its forks print `Done (1.234s)! For help, type "help"` once they accept players.
    readyPattern: /Done \(/,

    async install(dir, spec) {
      const jar = path.join(softwareDir, spec.software, `${spec.version}.jar`);
      if (!existsSync(jar)) throw new Error(`${spec.software} ${spec.version} is not available on this node yet.`);
      await copyFile(jar, path.join(dir, 'server.jar'));
      const file = path.join(dir, 'server.properties');
      const current = existsSync(file) ? await readFile(file, 'utf8') : defaultProperties({ motd: spec.motd, maxPlayers: spec.maxPlayers });
      await writeFile(file, updateProperties(current, { 'server-port': String(spec.port) }));
    },

    plan(dir, spec, bindHost) {
      return {
        command: 'java',
        args: [`-Xmx${spec.memoryMb}M`, `-Xms${Math.min(spec.memoryMb, 256)}M`, '-jar', 'server.jar', 'nogui'],
        cwd: dir,
        env: { PATH: process.env.PATH, SPAWNPOINT_HOST: bindHost, SPAWNPOINT_PORT: String(spec.port) },
      };
    },
  };
}
