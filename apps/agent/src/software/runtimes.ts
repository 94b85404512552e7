import type { Runtime } from '../runtimes/types.ts';
import { flyingSquidRuntime } from '../runtimes/flying-squid.ts';
import { javaJarRuntime } from '../runtimes/java-jar.ts';
import { JavaInstaller } from './java-installer.ts';
import { SoftwareInstaller } from './software-installer.ts';

/** Where the vendors' jars and version lists come from (a vendor's own site, or a mirror of it). */
export interface SoftwareMirrors {
  paper: string;
  purpur: string;
  mojang: string;
  fabric: string;
}

/** What the runtimes need: where software and Java runtimes are kept, where they come from, and which Java to use. */
export interface SoftwareSettings {
  softwareDir: string;
  javaDir: string;
  mirrors: SoftwareMirrors;
  adoptiumMirror: string;
  /** Download a Java runtime a server needs and the node lacks. */
  javaDownload: boolean;
  /** Use the Java runtimes installed on the machine too. */
  javaUseInstalled: boolean;
}

/**
 * The runtimes a server's software runs on, by runtime id (the built-in one, and Java jars with their
 * installers), `extra` in place of any of them (tests), and where Java runtimes are looked for.
 */
export function softwareRuntimes(settings: SoftwareSettings, extra: Record<string, Runtime> = {}) {
  const javaInstaller = settings.javaDownload ? new JavaInstaller(settings.javaDir, settings.adoptiumMirror) : undefined;
  const javaSearch = { installed: settings.javaUseInstalled, downloaded: settings.javaDir };
  const runtimes: Record<string, Runtime> = {
    'flying-squid': flyingSquidRuntime,
    'java-jar': javaJarRuntime(settings.softwareDir, {
      search: javaSearch,
      installer: new SoftwareInstaller(settings.softwareDir, settings.mirrors),
      java: javaInstaller,
    }),
    ...extra,
  };
  return { runtimes, javaInstaller, javaSearch };
}
