import { javaMajorFor } from '@spawnpoint/contracts';
import { describe, expect, it } from 'vitest';
import { findJavaRuntimes, pickJava } from './java-runtimes.ts';

describe('Java for a Minecraft version', () => {
  it('needs Java 21 from 1.20.5, 17 from 1.18, 16 for 1.17 and 8 before', () => {
    expect(['1.21.4', '1.20.5', '1.20.6'].map(javaMajorFor)).toEqual([21, 21, 21]);
    expect(['1.20.4', '1.19.4', '1.18', '1.18.2'].map(javaMajorFor)).toEqual([17, 17, 17, 17]);
    expect(['1.17', '1.17.1'].map(javaMajorFor)).toEqual([16, 16]);
    expect(['1.16.5', '1.12.2', '1.8.8'].map(javaMajorFor)).toEqual([8, 8, 8]);
  });

  it('runs a version on the smallest installed Java at or above what it needs, and says when there is none', () => {
    const installed = [
      { major: 8, bin: '/jvm/8/bin/java' },
      { major: 17, bin: '/jvm/17/bin/java' },
      { major: 25, bin: '/jvm/25/bin/java' },
    ];
    expect(pickJava(installed, javaMajorFor('1.12.2'))?.major).toBe(8);
    expect(pickJava(installed, javaMajorFor('1.17.1'))?.major).toBe(17);
    expect(pickJava(installed, javaMajorFor('1.21.4'))?.major).toBe(25);
    expect(pickJava(installed.slice(0, 2), javaMajorFor('1.21.4'))).toBeNull();
  });

  it("finds this machine's Java runtimes by their release files, one per major, with absolute binaries", () => {
    const found = findJavaRuntimes();
    // Every development and CI machine here has a JDK 17 (the tests compile a jar with it).
    expect(found.map((r) => r.major)).toContain(17);
    for (const r of found) expect(r.bin).toMatch(/^\/.*\/bin\/java$/);
    expect(new Set(found.map((r) => r.major)).size).toBe(found.length);
  });
});
