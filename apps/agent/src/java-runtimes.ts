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
function majorOf(home: string): number | null {
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

/**
 * The Java runtimes of this node: every JDK or JRE under /usr/lib/jvm (where Debian's and Adoptium's
 * packages put them) and the `java` on the agent's PATH (or JAVA_BIN), one per major, smallest first.
 */
export function findJavaRuntimes(configured?: string): JavaRuntime[] {
  const homes: string[] = [];
  if (existsSync(JVM_ROOT)) for (const name of readdirSync(JVM_ROOT)) homes.push(path.join(JVM_ROOT, name));
  const onPath = configured ?? javaOnPath();
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
    const major = majorOf(home);
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
