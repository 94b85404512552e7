import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** An installed Java runtime: its major version and its `java` binary, by absolute path with links resolved. */
export interface JavaRuntime {
  major: number;
  bin: string;
}

const JVM_ROOT = '/usr/lib/jvm';

/** The major version in a JDK's `release` file (`JAVA_VERSION="17.0.15"`, or `"1.8.0_402"` for Java 8). */
export function javaHomeMajor(home: string): number | null {
  try {
    const match = /^JAVA_VERSION="([^"]+)"/m.exec(readFileSync(path.join(home, 'release'), 'utf8'));
    if (!match?.[1]) return null;
    const [first, second] = match[1].split('.').map((n) => Number.parseInt(n, 10));
    return first === 1 ? (second ?? null) : (first ?? null);
  } catch {
    return null;
  }
}

function javaOnPath(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Where a node looks for Java: what is installed on it (unless the operator says not to), and what it downloaded. */
export interface JavaSearch {
  /** The runtimes installed on the machine (JAVA_USE_INSTALLED). */
  installed: boolean;
  /** The folder the node downloads runtimes into (java-installer.ts): `<folder>/<major>`. */
  downloaded?: string;
  /** A `java` binary to use instead of the one on PATH. */
  bin?: string;
}

/**
 * The Java runtimes of this node, one per major, smallest first: every JDK or JRE under /usr/lib/jvm (where
 * Debian's and Adoptium's packages put them) and the `java` on the agent's PATH (or `bin`), then those the
 * node downloaded.
 */
export function findJavaRuntimes(search: JavaSearch = { installed: true }): JavaRuntime[] {
  const homes: string[] = [];
  if (search.installed && existsSync(JVM_ROOT)) for (const name of readdirSync(JVM_ROOT)) homes.push(path.join(JVM_ROOT, name));
  const onPath = search.installed ? (search.bin ?? javaOnPath()) : null;
  if (search.downloaded && existsSync(search.downloaded))
    for (const name of readdirSync(search.downloaded)) if (/^\d+$/.test(name)) homes.push(path.join(search.downloaded, name));
  if (onPath) {
    try {
      homes.push(path.dirname(path.dirname(realpathSync(onPath))));
    } catch {
      // A dangling link: no runtime there.
    }
  }
  const byMajor = new Map<number, string>();
  for (const home of homes) {
    const bin = path.join(home, 'bin', 'java');
    const major = javaHomeMajor(home);
    if (major === null || !existsSync(bin) || byMajor.has(major)) continue;
    try {
      byMajor.set(major, realpathSync(bin));
    } catch {
      // Not readable: skipped.
    }
  }
  return [...byMajor.entries()].map(([major, bin]) => ({ major, bin })).sort((a, b) => a.major - b.major);
}

/** The smallest runtime at or above `needed`, or null. */
export function pickJava(runtimes: JavaRuntime[], needed: number): JavaRuntime | null {
  return runtimes.find((r) => r.major >= needed) ?? null;
}
