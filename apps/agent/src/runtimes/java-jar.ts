import { existsSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { heapMb } from '../cage/cgroups.ts';
import { canonicalProperties, defaultProperties, parseProperties } from '../server/properties.ts';
import { effectiveMaxPlayers, LaunchRefused } from './game-settings.ts';
import { javaMajorFor, MINECRAFT_EULA_URL } from '@spawnpoint/contracts';
import type { JavaInstaller } from '../software/java-installer.ts';
import { findJavaRuntimes, pickJava, type JavaRuntime, type JavaSearch } from '../software/java-runtimes.ts';
import type { SoftwareInstaller } from '../software/software-installer.ts';
import type { Runtime } from './types.ts';

/**
 * Java servers (Paper, Vanilla, …): `java -Xmx… -jar <cache>/<software>/<version>.jar nogui` in the server
 * folder. The jar runs from the node's software cache by absolute path — never a copy in the tenant's
 * folder, which the tenant could replace. A version the cache lacks is downloaded at the first start
 * that needs it (software-installer.ts), checked against the vendor's checksum.
 */
/** What the game reads to know its owner accepted the EULA (written only when they did, through the sandbox). */
const EULA_TEXT = `# Accepted by the server's owner in the Spawnpoint dashboard (${MINECRAFT_EULA_URL}).\neula=true\n`;

export interface JavaJarOptions {
  /** Where the node's Java runtimes are (java-runtimes.ts). */
  search?: JavaSearch;
  /** Downloads server jars into the cache. */
  installer?: SoftwareInstaller;
  /** Downloads a Java runtime when none installed fits (java-installer.ts); none: the operator installs them. */
  java?: JavaInstaller;
}

export function javaJarRuntime(softwareDir: string, options: JavaJarOptions = {}): Runtime {
  const { installer, java: javaInstaller } = options;
  const search: JavaSearch = options.search ?? { installed: true, downloaded: javaInstaller?.javaDir };
  const jarOf = (software: string, version: string) => path.join(softwareDir, software, `${version}.jar`);
  let javas: JavaRuntime[] | null = null;
  /** The smallest Java here at or above what `version` needs, or null. */
  const javaFitting = (version: string): JavaRuntime | null => {
    javas ??= findJavaRuntimes(search);
    const needed = javaMajorFor(version);
    // None fits: looked for again, so a Java the operator installed (or a start downloaded) since counts.
    return pickJava(javas, needed) ?? pickJava((javas = findJavaRuntimes(search)), needed);
  };
  /** The Java a Minecraft version runs on here. */
  const javaFor = (version: string): JavaRuntime => {
    const java = javaFitting(version);
    if (java) return java;
    const needed = javaMajorFor(version);
    throw new LaunchRefused(
      javaInstaller
        ? `Minecraft ${version} needs Java ${needed} or newer, which this node does not have yet: start the server again to download it.`
        : `Minecraft ${version} needs Java ${needed} or newer, which this node does not have. Its operator installs it (on Debian: openjdk-${needed > 17 ? 21 : 17}-jre-headless).`,
    );
  };
  // The game refuses to run without eula=true, which we write only on the owner's word.
  const refuseWithoutEula = (spec: { eulaAccepted: boolean }) => {
    if (!spec.eulaAccepted)
      throw new LaunchRefused(
        `The Minecraft EULA (${MINECRAFT_EULA_URL}) has not been accepted for this server. Start it from the dashboard to accept it.`,
      );
  };
  return {
    // A version missing from the cache is downloaded by the node (checked against the vendor's checksum).
    // So is a Java runtime the node lacks, when it may download one.
    needsSoftware: (spec) =>
      (!existsSync(jarOf(spec.software, spec.version)) && Boolean(installer?.isInstallable(spec.software))) ||
      (Boolean(javaInstaller) && !javaFitting(spec.version)),
    async fetchSoftware(spec, progress) {
      // Said before a download that could not run anyway.
      refuseWithoutEula(spec);
      if (javaInstaller && !javaFitting(spec.version)) {
        await javaInstaller.ensure(javaMajorFor(spec.version), progress);
        javas = null;
      }
      javaFor(spec.version);
      if (installer?.isInstallable(spec.software)) await installer.ensure(spec.software, spec.version, progress);
    },
    stopCommand: 'stop',
    // Vanilla and its forks print `Done (1.234s)! For help, type "help"` once they accept players.
    readyPattern: /Done \(/,

    async install(sandbox, spec) {
      const current =
        (await sandbox.readTextIfExists('server.properties')) ?? defaultProperties({ motd: spec.motd, maxPlayers: spec.maxPlayers });
      // The game reads its own file: the port is ours, and the slots never more than the plan's.
      const slots = effectiveMaxPlayers(parseProperties(current), spec.maxPlayers);
      // Rewritten in one form at every start: Java's reader accepts more forms than ours, and must see
      // exactly what the agent checks before launching (level-name, the port, the player cap).
      const next = canonicalProperties(current, { 'server-port': String(spec.port), 'max-players': String(slots) });
      if (next !== current) await sandbox.writeFrom('server.properties', Readable.from([Buffer.from(next)]), { overwrite: true });
      if (spec.eulaAccepted && (await sandbox.readTextIfExists('eula.txt'))?.trim() !== EULA_TEXT.trim())
        await sandbox.writeFrom('eula.txt', Readable.from([Buffer.from(EULA_TEXT)]), { overwrite: true });
    },

    writtenFolders: (settings) => [[], settings.levelName.split('/'), ['logs'], ['plugins']],

    async plan({ dir, spec, bindHost }) {
      refuseWithoutEula(spec);
      const java = javaFor(spec.version).bin;
      const heap = heapMb(spec.memoryMb);
      const jar = jarOf(spec.software, spec.version);
      if (!existsSync(jar)) throw new LaunchRefused(`${spec.software} ${spec.version} is not available on this node.`);
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
