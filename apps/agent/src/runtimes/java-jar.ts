import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { heapMb } from '../cgroups.ts';
import { defaultProperties, parseProperties, updateProperties } from '../properties.ts';
import { effectiveMaxPlayers } from './game-settings.ts';
import type { Runtime } from './types.ts';

/**
 * The Java binary by absolute path (JAVA_BIN, or `java` found on the agent's PATH once), links resolved:
 * /usr/bin/java leads through /etc/alternatives into the JDK, which is what the cage mounts.
 */
function javaBinary(configured: string | undefined): string {
  let found = configured;
  if (!found) {
    try {
      found = execFileSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).trim() || '/usr/bin/java';
    } catch {
      found = '/usr/bin/java';
    }
  }
  try {
    return realpathSync(found);
  } catch {
    return found;
  }
}

/**
 * Java servers (Paper, Vanilla, …): `java -Xmx… -jar <cache>/<software>/<version>.jar nogui` in the server
 * folder. The jar runs from the node's software cache by absolute path — never a copy in the tenant's
 * folder, which the tenant could replace. Filling that cache from the vendors' download APIs (with
 * checksums) is the operator's job; this machine cannot download jars.
 */
export function javaJarRuntime(softwareDir: string, javaBin?: string): Runtime {
  const jarOf = (software: string, version: string) => path.join(softwareDir, software, `${version}.jar`);
  let java: string | null = null;
  return {
    stopCommand: 'stop',
    // Vanilla and its forks print `Done (1.234s)! For help, type "help"` once they accept players.
    readyPattern: /Done \(/,

    async install(sandbox, spec) {
      if (!existsSync(jarOf(spec.software, spec.version)))
        throw new Error(`${spec.software} ${spec.version} is not available on this node yet.`);
      const current =
        (await sandbox.readTextIfExists('server.properties')) ?? defaultProperties({ motd: spec.motd, maxPlayers: spec.maxPlayers });
      // The game reads its own file: the port is ours, and the slots never more than the plan's.
      const slots = effectiveMaxPlayers(parseProperties(current), spec.maxPlayers);
      const next = updateProperties(current, { 'server-port': String(spec.port), 'max-players': String(slots) });
      if (next !== current) await sandbox.writeFrom('server.properties', Readable.from([Buffer.from(next)]), { overwrite: true });
    },

    writtenFolders: (settings) => [[], settings.levelName.split('/'), ['logs'], ['plugins']],

    async plan({ dir, spec, bindHost }) {
      java ??= javaBinary(javaBin);
      const heap = heapMb(spec.memoryMb);
      const jar = jarOf(spec.software, spec.version);
      // The JDK (java is …/bin/java): mounted by the cage unless it is under /usr, which every cage has.
      const home = path.dirname(path.dirname(java));
      return {
        command: java,
        // -Xmx below the cgroup's memory limit: the JVM needs room besides its heap (threads, metaspace, code).
        args: [`-Xmx${heap}M`, `-Xms${Math.min(heap, 256)}M`, '-jar', jar, 'nogui'],
        cwd: dir,
        // No JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS of the agent's, nothing secret.
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', SPAWNPOINT_HOST: bindHost, SPAWNPOINT_PORT: String(spec.port) },
        readOnly: home.startsWith('/usr/') ? [jar] : [jar, home],
      };
    },
  };
}
