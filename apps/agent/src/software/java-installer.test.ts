import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFakeJar } from '../../test-support/fake-jar.ts';
import { javaServerSpec, startTestAgent, startUntilSettled, type TestAgent } from '../../test-support/test-agent.ts';
import { javaFeatureFor } from '@spawnpoint/contracts';
import { JavaInstaller } from './java-installer.ts';
import { findJavaRuntimes } from './java-runtimes.ts';
import { packMachineJava, type JavaFixture } from '../../../../test-support/java-fixture.ts';
import { startVendorStub, type VendorStub } from '../../../../test-support/vendor-stub.ts';
import { until } from '../../../../test-support/until.ts';

/**
 * Java runtimes downloaded by the node, from a local stand-in for Adoptium's API v3 (this machine reaches
 * no vendor) serving a real runtime: this machine's own Java, packed as Temurin packs a JRE.
 */
let stub: VendorStub;
let fixture: JavaFixture;
const folders: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  folders.push(dir);
  return dir;
};

beforeAll(async () => {
  fixture = packMachineJava();
  stub = await startVendorStub();
  stub.java[fixture.major] = fixture;
}, 120_000);
afterAll(async () => {
  await stub.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('the Java a version needs', () => {
  it('is the smallest long-term Java at or above what it needs', () => {
    expect([8, 16, 17, 21, 25].map(javaFeatureFor)).toEqual([8, 17, 17, 21, 25]);
    expect(javaFeatureFor(26)).toBeNull();
  });
});

describe('downloading a Java runtime', { timeout: 120_000 }, () => {
  it("downloads, checks and unpacks the vendor's runtime once, and it runs", async () => {
    const dir = tempDir('spawnpoint-java-');
    const installer = new JavaInstaller(dir, stub.url);
    const lines: string[] = [];
    // Two starts needing it at once share one download.
    const [first, second] = await Promise.all([
      installer.ensure(fixture.major, (line) => lines.push(line)),
      installer.ensure(fixture.major, (line) => lines.push(line)),
    ]);
    expect(first).toEqual({ major: fixture.major, bin: path.join(dir, String(fixture.major), 'bin', 'java') });
    expect(second).toEqual(first);
    const text = lines.join('\n');
    expect(text).toContain(`downloading Eclipse Temurin ${fixture.major} once for every server here`);
    expect(text).toContain(`Downloading Eclipse Temurin ${fixture.releaseName} (Java runtime)`);
    expect(text).toMatch(/: \d0 % of \d+\.\d MB/);
    expect(text).toContain(`is ready (SHA-256 ${fixture.sha256.slice(0, 16)}`);
    expect(text).toContain(`Another server is downloading Java ${fixture.major}; waiting for it.`);
    // A real runtime: it runs, and it is the Java it was asked for.
    const run = spawnSync(first.bin, ['-version'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`version "${fixture.major}[."]`));
    expect(findJavaRuntimes({ installed: false, downloaded: dir })).toEqual([first]);
    // Nothing of the download is left beside it; a second ensure downloads nothing.
    expect(readdirSync(dir)).toEqual([String(fixture.major)]);
    const requests = stub.requests;
    await installer.ensure(fixture.major);
    expect(stub.requests).toBe(requests);
  });

  it('refuses a runtime whose checksum does not match, and keeps nothing of it', async () => {
    const dir = tempDir('spawnpoint-java-');
    stub.javaChecksum = '0'.repeat(64);
    try {
      await expect(new JavaInstaller(dir, stub.url).ensure(fixture.major)).rejects.toThrow(
        `The download of Eclipse Temurin ${fixture.releaseName} (Java runtime) did not match Adoptium's SHA-256 checksum, so it was not used. Try again later.`,
      );
    } finally {
      stub.javaChecksum = null;
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a damaged archive and one that is another Java than it claims', async () => {
    const dir = tempDir('spawnpoint-java-');
    const broken = path.join(tempDir('spawnpoint-broken-'), 'jre.tar.gz');
    const garbage = Buffer.from('not a gzip at all');
    writeFileSync(broken, garbage);
    const saved = stub.java[fixture.major];
    // Published with its own (correct) checksum, yet not an archive.
    stub.java[fixture.major] = {
      ...fixture,
      archive: broken,
      size: garbage.length,
      sha256: createHash('sha256').update(garbage).digest('hex'),
    };
    try {
      await expect(new JavaInstaller(dir, stub.url).ensure(fixture.major)).rejects.toThrow(
        /could not be unpacked \(.+\), so it was not used\./,
      );
    } finally {
      stub.java[fixture.major] = saved as JavaFixture;
    }
    // The same runtime offered as another Java (the vendor's metadata says 21, the runtime is not).
    const other = fixture.major === 21 ? 25 : 21;
    stub.java[other] = fixture;
    try {
      await expect(new JavaInstaller(dir, stub.url).ensure(other)).rejects.toThrow(
        `turned out to be Java ${fixture.major}, not Java ${other}, so it was not used.`,
      );
    } finally {
      delete stub.java[other];
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses an archive whose links lead out of its folder through one another, and nothing of it is used', async () => {
    // Each link's own text stays inside (`l1 -> ..`, `bin -> a/b/l1/../../../outside`), but the system takes
    // the second through the first to a folder beside the node's Java folder, where a Linux program waits.
    const root = tempDir('spawnpoint-java-escape-');
    const dir = path.join(root, 'java');
    mkdirSync(path.join(root, 'outside'), { recursive: true });
    copyFileSync('/bin/true', path.join(root, 'outside', 'java'));
    const tar = pack();
    tar.entry({ name: 'jdk-21-jre/release' }, 'JAVA_VERSION="21.0.5"\n');
    tar.entry({ name: 'jdk-21-jre/a/b/', type: 'directory' });
    tar.entry({ name: 'jdk-21-jre/a/b/l1', type: 'symlink', linkname: '..' });
    tar.entry({ name: 'jdk-21-jre/bin', type: 'symlink', linkname: 'a/b/l1/../../../outside' });
    tar.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of tar) chunks.push(chunk as Buffer);
    const archive = path.join(root, 'hostile.tar.gz');
    const bytes = gzipSync(Buffer.concat(chunks));
    writeFileSync(archive, bytes);
    stub.java[21] = {
      archive,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
      major: 21,
      releaseName: 'jdk-21-jre',
    };
    try {
      await expect(new JavaInstaller(dir, stub.url).ensure(21)).rejects.toThrow(
        /could not be unpacked \(a link leads out of its folder or nowhere: bin\)/,
      );
    } finally {
      delete stub.java[21];
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(findJavaRuntimes({ installed: false, downloaded: dir })).toEqual([]);
  });

  it('says when the vendor has no runtime for a Java, or cannot be reached', async () => {
    const dir = tempDir('spawnpoint-java-');
    const missing = fixture.major === 25 ? 21 : 25;
    await expect(new JavaInstaller(dir, stub.url).ensure(missing)).rejects.toThrow(
      `Adoptium publishes no Java ${missing} runtime for this node (Linux, ${process.arch === 'arm64' ? 'aarch64' : 'x64'}).`,
    );
    await expect(new JavaInstaller(dir, 'http://127.0.0.1:9').ensure(missing)).rejects.toThrow(
      `Could not reach the download server for Java ${missing}`,
    );
  });
});

describe('a Java server on a node without its Java', { timeout: 120_000 }, () => {
  let t: TestAgent;
  beforeAll(async () => {
    // Only the Java it downloads (JAVA_USE_INSTALLED=false): this machine's own is out of its sight.
    t = await startTestAgent('java-download', {}, { JAVA_USE_INSTALLED: 'false', SOFTWARE_MIRROR_ADOPTIUM: stub.url });
    // The server's jar is already in the node's cache (a compiled stand-in for Paper).
    buildFakeJar(path.join(t.dataDir, 'software', 'paper', '1.20.4.jar'));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('downloads the Java with progress in the console, then runs the server on it', async () => {
    const spec = await javaServerSpec('jv1', 'paper');
    expect((await t.call('PUT', '/v1/servers/jv1', spec)).body.status).toBe('SUCCESS');
    const server = t.agent.servers.get('jv1');
    const states = await startUntilSettled(t, 'jv1', 90_000);
    const text = server?.console.lines().join('\n') ?? '';
    expect(text).toContain('This server needs Java 17, which this node does not have yet');
    expect(text).toContain('(Java runtime) is ready (SHA-256');
    expect(states[0]).toBe('installing');
    expect(server?.state).toBe('online');
    expect(lstatSync(path.join(t.dataDir, 'java', '17', 'bin', 'java')).isFile()).toBe(true);
    await t.call('POST', '/v1/servers/jv1/power', { action: 'stop' });
    await until(
      () => server?.state,
      (s) => s === 'offline',
    );
    expect(existsSync(path.join(t.dataDir, 'java', '17'))).toBe(true);
  });
});
