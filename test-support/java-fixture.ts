import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A real Java runtime packed as Adoptium packs one (`<release name>/bin/java`, …, in a .tar.gz). */
export interface JavaFixture {
  archive: string;
  sha256: string;
  size: number;
  major: number;
  /** The folder name inside the archive, as Adoptium's `release_name`. */
  releaseName: string;
}

/**
 * This machine's own Java, cut down to `java.base` by its `jlink` and packed as a Temurin JRE archive is:
 * the runtime a local stand-in for Adoptium serves. Made once per machine and Java version (in the temp
 * folder), since jlink takes seconds.
 */
export function packMachineJava(): JavaFixture {
  const java = realpathSync(execFileSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).trim());
  const home = path.dirname(path.dirname(java));
  const version = /^JAVA_VERSION="([^"]+)"/m.exec(readFileSync(path.join(home, 'release'), 'utf8'))?.[1] ?? 'unknown';
  const major = Number.parseInt(version.startsWith('1.') ? (version.split('.')[1] ?? '') : (version.split('.')[0] ?? ''), 10);
  const releaseName = `jdk-${version}-jre`;
  const archive = path.join(os.tmpdir(), `spawnpoint-java-fixture-${version}.tar.gz`);
  if (!existsSync(archive)) {
    const work = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-jlink-'));
    try {
      const out = path.join(work, releaseName);
      execFileSync(path.join(home, 'bin', 'jlink'), [
        '--add-modules',
        'java.base',
        '--output',
        out,
        '--no-header-files',
        '--no-man-pages',
        '--strip-debug',
      ]);
      execFileSync('tar', ['-czf', path.join(work, 'jre.tar.gz'), '-C', work, releaseName]);
      renameSync(path.join(work, 'jre.tar.gz'), archive);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const bytes = readFileSync(archive);
  return { archive, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, major, releaseName };
}
