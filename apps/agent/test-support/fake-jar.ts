import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Compiles FakeServer.java into a runnable jar at `target` (needs a JDK: javac and jar). */
export function buildFakeJar(target: string): void {
  const work = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-fake-jar-'));
  execFileSync('javac', ['-encoding', 'UTF-8', '-d', work, path.join(import.meta.dirname, 'FakeServer.java')]);
  writeFileSync(path.join(work, 'manifest.txt'), 'Main-Class: FakeServer\n');
  mkdirSync(path.dirname(target), { recursive: true });
  execFileSync('jar', ['cfm', target, path.join(work, 'manifest.txt'), '-C', work, '.']);
}
