import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  renameSync,
  chmodSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';

type TarHeader = { name: string; type: 'file' | 'symlink' | 'link' | 'directory'; size?: number; linkname?: string };
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { until } from '../../../../test-support/until.ts';
import { extractArchive, openTrees, packLimitMessage, packLimitOf, packTarGz } from './archives.ts';
import { FILE_LIST_MAX } from '@spawnpoint/contracts';
import { MEASURE_MAX_AGE_MS, Sandbox } from './sandbox.ts';

/**
 * The escape suite: each test attacks the sandbox the way published panel advisories did, and checks
 * that it is refused with nothing changed outside the server folder.
 */
let base: string;
let root: string;
let outside: string;
let sandbox: Sandbox;
const MB = 1024 * 1024;

beforeEach(async () => {
  base = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-sandbox-'));
  root = path.join(base, 'data');
  outside = path.join(base, 'data_secret');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET');
  chmodSync(path.join(outside, 'secret.txt'), 0o600);
  sandbox = await Sandbox.open(root, 10 * MB);
});
afterEach(async () => {
  await sandbox.close();
  rmSync(base, { recursive: true, force: true });
});

const body = (text: string) => Readable.from([Buffer.from(text)]);
const read = async (p: string) => {
  const { stream } = await sandbox.readStream(p);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};
/** Bytes of regular files under `dir`, counted on disk without the sandbox. */
const duBytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(path.join(e.parentPath, e.name)).size, 0);
const outsideUntouched = () => {
  expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
  expect(statSync(path.join(outside, 'secret.txt')).mode & 0o777).toBe(0o600);
  expect(existsSync(path.join(base, 'evil.txt'))).toBe(false);
  expect(existsSync(path.join(outside, 'evil.txt'))).toBe(false);
  expect(existsSync(path.join(outside, 'pwned.txt'))).toBe(false);
};

async function tarGz(entries: TarHeader[], contents: Record<string, string> = {}): Promise<Buffer> {
  const pack = tar.pack();
  for (const header of entries) {
    if (header.type === 'file') pack.entry(header, contents[header.name] ?? '');
    else pack.entry(header);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack.pipe(createGzip())) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function zipWith(file: string, script: string) {
  execFileSync('python3', [
    '-c',
    `import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\n${script}\nz.close()`,
    file,
  ]);
}

describe('path traversal', () => {
  it('refuses ../ in every position', async () => {
    for (const p of ['../data_secret/secret.txt', 'a/../../data_secret/secret.txt', '/..', '..', 'world/../../x']) {
      await expect(sandbox.readStream(p), p).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(sandbox.writeFrom(`${p}/evil.txt`, body('x'), { overwrite: true })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    outsideUntouched();
  });

  it('takes encoded and absolute paths literally, inside the root', async () => {
    await expect(sandbox.readStream('%2e%2e/data_secret/secret.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(sandbox.readStream('/etc/passwd')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // A prefix test without the separator would take data_secret for data.
    await expect(sandbox.readStream('/data_secret/secret.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await sandbox.writeFrom('/etc/passwd-note.txt', body('inside'), { overwrite: true }).catch(() => undefined);
    expect(existsSync('/etc/passwd-note.txt')).toBe(false);
  });

  it('refuses NUL and control characters', async () => {
    await expect(sandbox.readStream('a\0b')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(sandbox.mkdir('a\nb')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('symlinks the tenant created', () => {
  beforeEach(() => {
    symlinkSync('/etc', path.join(root, 'etc-link'));
    symlinkSync(outside, path.join(root, 'secret-dir'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-file'));
  });

  it('does not write through a symlink', async () => {
    await expect(sandbox.writeFrom('secret-dir/evil.txt', body('x'), { overwrite: true })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(sandbox.writeFrom('secret-file', body('overwritten'), { overwrite: true })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(sandbox.writeFrom('etc-link/spawnpoint-test', body('x'), { overwrite: true })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(sandbox.mkdir('secret-dir/newdir')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    outsideUntouched();
    expect(existsSync('/etc/spawnpoint-test')).toBe(false);
  });

  it('does not read through a symlink', async () => {
    await expect(read('secret-file')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(read('secret-dir/secret.txt')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(read('etc-link/hostname')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(sandbox.list('secret-dir')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const listing = await sandbox.list('/');
    expect(listing.find((e) => e.name === 'secret-dir')?.type).toBe('symlink');
  });

  it('deletes the link, never its target, and never through it', async () => {
    await expect(sandbox.remove('secret-dir/secret.txt')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await sandbox.remove('secret-dir');
    await sandbox.remove('secret-file');
    expect(existsSync(path.join(root, 'secret-dir'))).toBe(false);
    outsideUntouched();
  });

  it('deletes a folder holding a link without following it', async () => {
    mkdirSync(path.join(root, 'world'));
    symlinkSync(outside, path.join(root, 'world', 'escape'));
    await sandbox.remove('world');
    expect(existsSync(path.join(root, 'world'))).toBe(false);
    outsideUntouched();
  });

  it('does not chmod through a symlink', async () => {
    await expect(sandbox.chmod('secret-file', 0o777)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(sandbox.chmod('secret-dir', 0o777)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(sandbox.chmod('secret-dir/secret.txt', 0o777)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    outsideUntouched();
  });

  it('does not rename or move through a symlink', async () => {
    writeFileSync(path.join(root, 'mine.txt'), 'mine');
    await expect(sandbox.rename('mine.txt', 'secret-dir/evil.txt')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(sandbox.rename('secret-dir/secret.txt', 'stolen.txt')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    outsideUntouched();
  });

  it('never reads outside while a symlink is swapped in during concurrent reads', async () => {
    mkdirSync(path.join(root, 'real'));
    writeFileSync(path.join(root, 'real', 'secret.txt'), 'inside');
    let running = true;
    const swapper = (async () => {
      let flip = false;
      while (running) {
        flip = !flip;
        const target = path.join(root, 'swap');
        rmSync(target, { recursive: true, force: true });
        if (flip) symlinkSync(outside, target);
        else {
          mkdirSync(path.join(root, 'swap.tmp'), { recursive: true });
          writeFileSync(path.join(root, 'swap.tmp', 'secret.txt'), 'inside');
          renameSync(path.join(root, 'swap.tmp'), target);
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) seen.add(await read('swap/secret.txt').catch((err: { code?: string }) => err.code ?? 'error'));
    running = false;
    await swapper;
    expect(seen.has('TOP SECRET')).toBe(false);
  });
});

describe('special files', () => {
  it('refuses a FIFO without hanging', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    await expect(read('pipe')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(sandbox.writeFrom('pipe', body('x'), { overwrite: true })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(sandbox.chmod('pipe', 0o777)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('archives', () => {
  it('refuses tar-slip entries and leaves nothing outside', async () => {
    for (const name of ['../evil.txt', '../../evil.txt', 'ok/../../evil.txt', '/tmp/evil.txt']) {
      writeFileSync(path.join(root, 'slip.tar.gz'), await tarGz([{ name, type: 'file', size: 4 }], { [name]: 'evil' }));
      await expect(extractArchive(sandbox, 'slip.tar.gz', '/'), name).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    outsideUntouched();
    expect(existsSync('/tmp/evil.txt')).toBe(false);
  });

  it('refuses zip-slip entries', async () => {
    zipWith(path.join(root, 'slip.zip'), "z.writestr('../evil.txt','evil')\nz.writestr('../data_secret/evil.txt','evil')");
    await expect(extractArchive(sandbox, 'slip.zip', '/')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    outsideUntouched();
  });

  it('never creates links: a symlink entry and then a file through it stay inside', async () => {
    const archive = await tarGz(
      [
        { name: 'link', type: 'symlink', linkname: outside },
        { name: 'link/pwned.txt', type: 'file', size: 5 },
        { name: 'hard', type: 'link', linkname: '../data_secret/secret.txt' },
      ],
      { 'link/pwned.txt': 'pwned' },
    );
    writeFileSync(path.join(root, 'links.tar.gz'), archive);
    const result = await extractArchive(sandbox, 'links.tar.gz', '/');
    expect(result.skipped).toBe(2);
    expect(readFileSync(path.join(root, 'link', 'pwned.txt'), 'utf8')).toBe('pwned');
    expect(statSync(path.join(root, 'link')).isDirectory()).toBe(true);
    outsideUntouched();
  });

  it('stops a zip bomb at the free disk space, counting real bytes', async () => {
    zipWith(path.join(root, 'bomb.zip'), "z.writestr('zeros.bin', b'\\0' * (64*1024*1024))");
    expect(statSync(path.join(root, 'bomb.zip')).size).toBeLessThan(200_000);
    await expect(extractArchive(sandbox, 'bomb.zip', '/')).rejects.toMatchObject({ code: 'DISK_LIMIT' });
    expect(existsSync(path.join(root, 'zeros.bin'))).toBe(false);
    expect(await sandbox.measure()).toBeLessThan(10 * MB);
  });

  it('counts the bytes of entries it does not create, so a link or a FIFO carrying a bomb stops too', async () => {
    // A header may claim any size for a FIFO (tar-stream will not write one, so a file's header is turned
    // into a FIFO's: type flag '6', checksum made again); its 64 MB of zeros compress to a few hundred KB.
    const pack = tar.pack();
    pack.entry({ name: 'pipe', type: 'file', size: 64 * MB }, Buffer.alloc(64 * MB));
    pack.finalize();
    const raw: Buffer[] = [];
    for await (const c of pack) raw.push(c as Buffer);
    const archive = Buffer.concat(raw);
    archive[156] = 0x36;
    archive.fill(0x20, 148, 156);
    const sum = archive.subarray(0, 512).reduce((total, byte) => total + byte, 0);
    archive.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    writeFileSync(path.join(root, 'fifo-bomb.tar.gz'), gzipSync(archive));
    expect(statSync(path.join(root, 'fifo-bomb.tar.gz')).size).toBeLessThan(MB);
    await expect(extractArchive(sandbox, 'fifo-bomb.tar.gz', '/', { maxEntries: 10, maxBytes: MB })).rejects.toMatchObject({
      code: 'DISK_LIMIT',
    });
    expect(existsSync(path.join(root, 'pipe'))).toBe(false);
  });

  it('stops at the entry limit', async () => {
    const entries = Array.from({ length: 30 }, (_, i) => ({ name: `f${i}.txt`, type: 'file' as const, size: 1 }));
    writeFileSync(path.join(root, 'many.tar.gz'), await tarGz(entries, Object.fromEntries(entries.map((e) => [e.name, 'x']))));
    await expect(extractArchive(sandbox, 'many.tar.gz', '/', { maxEntries: 10, maxBytes: MB })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('leaves no folder behind when it refuses an archive (wrong kind, missing, damaged, a slip entry)', async () => {
    writeFileSync(path.join(root, 'empty.txt'), '');
    writeFileSync(path.join(root, 'fake.zip'), 'not a zip');
    zipWith(path.join(root, 'slip.zip'), "z.writestr('ok.txt','fine')\nz.writestr('../slip.txt','x')");
    await expect(extractArchive(sandbox, 'empty.txt', 'fresh-a')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(extractArchive(sandbox, 'nothing.zip', 'fresh-b/c/d')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(extractArchive(sandbox, 'fake.zip', 'fresh-e')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(extractArchive(sandbox, 'slip.zip', 'fresh-f/inner')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    for (const made of ['fresh-a', 'fresh-b', 'fresh-e', 'fresh-f']) expect(existsSync(path.join(root, made)), made).toBe(false);
    // Into a folder that was there: the owner's files stay, and so does what came before the refusal.
    mkdirSync(path.join(root, 'mine'));
    writeFileSync(path.join(root, 'mine/keep.txt'), 'keep');
    await expect(extractArchive(sandbox, 'slip.zip', 'mine')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(readFileSync(path.join(root, 'mine/keep.txt'), 'utf8')).toBe('keep');
  });

  it('extracts a normal archive into a folder', async () => {
    zipWith(path.join(root, 'plugins.zip'), "z.writestr('plugins/a.txt','A')\nz.writestr('plugins/sub/b.txt','B')");
    const result = await extractArchive(sandbox, 'plugins.zip', 'unpacked');
    expect(result.files).toBe(2);
    expect(readFileSync(path.join(root, 'unpacked/plugins/sub/b.txt'), 'utf8')).toBe('B');
  });
});

describe('removing a folder the game is still writing in', () => {
  it('counts files that vanish midway (a temporary file renamed into place) as removed, and leaves nothing', async () => {
    const world = path.join(root, 'world');
    mkdirSync(world);
    for (let i = 0; i < 3000; i++) writeFileSync(path.join(world, `f${i}.tmp`), 'x');
    // Another writer takes files away while the removal walks the folder.
    let taking = true;
    const taker = (async () => {
      for (let i = 2999; taking && i >= 0; i -= 2) {
        rmSync(path.join(world, `f${i}.tmp`), { force: true });
        if (i % 50 === 1) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();
    await sandbox.remove('world');
    taking = false;
    await taker;
    expect(existsSync(world)).toBe(false);
  });
});

describe('overwrites', () => {
  it("keep the file's permissions (an exec bit, an owner's 600), never a setuid bit", async () => {
    await sandbox.writeFrom('run.sh', body('#!/bin/sh\n'), { overwrite: true });
    await sandbox.chmod('run.sh', 0o755);
    await sandbox.writeFrom('run.sh', body('#!/bin/sh\necho bye\n'), { overwrite: true });
    expect(statSync(path.join(root, 'run.sh')).mode & 0o7777).toBe(0o755);
    await sandbox.chmod('run.sh', 0o600);
    await sandbox.writeFrom('run.sh', body('again'), { overwrite: true });
    expect((await sandbox.stat('run.sh')).mode).toBe(0o600);
    chmodSync(path.join(root, 'run.sh'), 0o4755);
    await sandbox.writeFrom('run.sh', body('once more'), { overwrite: true });
    expect(statSync(path.join(root, 'run.sh')).mode & 0o7777).toBe(0o755);
    expect(readFileSync(path.join(root, 'run.sh'), 'utf8')).toBe('once more');
  });
});

describe('disk quota', () => {
  it('refuses a write that would pass the quota and keeps nothing of it', async () => {
    const big = Readable.from(
      (function* () {
        for (let i = 0; i < 12; i++) yield Buffer.alloc(MB, 1);
      })(),
    );
    await expect(sandbox.writeFrom('big.bin', big, { overwrite: true })).rejects.toMatchObject({ code: 'DISK_LIMIT' });
    expect(existsSync(path.join(root, 'big.bin'))).toBe(false);
    expect((await sandbox.list('/')).filter((e) => e.name.startsWith('.spawnpoint-'))).toEqual([]);
  });

  it("counts blocks held past a file's end and files whose names are not UTF-8", async () => {
    // What a game could write to hide bytes from a walk that stats names or reads sizes only.
    writeFileSync(path.join(root, 'held.bin'), '');
    execFileSync('fallocate', ['--keep-size', '--length', '4MiB', path.join(root, 'held.bin')]);
    writeFileSync(Buffer.from(`${root}/odd-\xff-name.bin`, 'latin1'), Buffer.alloc(3 * MB, 1));
    expect(await sandbox.measure()).toBeGreaterThanOrEqual(4 * 1024 * 1024 + 3 * MB);
    await expect(sandbox.writeFrom('more.bin', Readable.from([Buffer.alloc(4 * MB)]), { overwrite: true })).rejects.toMatchObject({
      code: 'DISK_LIMIT',
    });
  });

  it('counts an overwrite as the difference', async () => {
    await sandbox.writeFrom('a.bin', Readable.from([Buffer.alloc(6 * MB)]), { overwrite: true });
    await sandbox.writeFrom('a.bin', Readable.from([Buffer.alloc(7 * MB)]), { overwrite: true });
    expect(sandbox.used).toBe(7 * MB);
  });

  /** A source that yields `total` bytes in 256 KiB chunks, letting other writes run in between. */
  const slow = (total: number, gate?: { at: number; wait: Promise<void> }) =>
    (async function* () {
      for (let sent = 0; sent < total; sent += MB / 4) {
        if (gate && sent === gate.at) await gate.wait;
        await new Promise<void>((resolve) => setImmediate(resolve));
        yield Buffer.alloc(Math.min(MB / 4, total - sent), 7);
      }
    })();

  it('does not let parallel writes pass the quota together', async () => {
    await sandbox.writeFrom('world.bin', Readable.from([Buffer.alloc(6 * MB)]), { overwrite: true });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => sandbox.writeFrom(`up${i}.bin`, slow(3 * MB), { overwrite: true })),
    );
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeLessThanOrEqual(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'DISK_LIMIT' });
    expect(duBytes(root)).toBeLessThanOrEqual(10 * MB);
    expect(readdirSync(root).filter((n) => n.startsWith('.spawnpoint-'))).toEqual([]);
    expect(sandbox.used).toBe(await sandbox.measure());
  });

  it('does not let parallel overwrites of one file each use its room', async () => {
    await sandbox.writeFrom('a.bin', Readable.from([Buffer.alloc(5 * MB)]), { overwrite: true });
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () => sandbox.writeFrom('a.bin', slow(5 * MB), { overwrite: true })),
    );
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    expect(duBytes(root)).toBeLessThanOrEqual(10 * MB);
  });

  it('refuses an overwrite whose file was renamed away meanwhile when the result would pass the quota', async () => {
    await sandbox.writeFrom('a.bin', Readable.from([Buffer.alloc(6 * MB)]), { overwrite: true });
    let open!: () => void;
    const wait = new Promise<void>((resolve) => (open = resolve));
    const writing = sandbox.writeFrom('a.bin', slow(7 * MB, { at: 2 * MB, wait }), { overwrite: true });
    await until(
      () => readdirSync(root).some((n) => n.startsWith('.spawnpoint-')),
      (started) => started,
    );
    await sandbox.rename('a.bin', 'b.bin');
    open();
    await expect(writing).rejects.toMatchObject({ code: 'DISK_LIMIT' });
    expect(readdirSync(root).sort()).toEqual(['b.bin']);
    expect(duBytes(root)).toBeLessThanOrEqual(10 * MB);
  });

  it('skips only the temporary file of a write in progress when measuring, not files of the same name elsewhere', async () => {
    let open!: () => void;
    const wait = new Promise<void>((resolve) => (open = resolve));
    const writing = sandbox.writeFrom('slow.bin', slow(MB, { at: MB / 2, wait }), { overwrite: true });
    const temp = await until(
      () => readdirSync(root).find((n) => n.startsWith('.spawnpoint-')),
      (name) => name !== undefined,
    );
    // The tenant sees the name in the listing and uses it for big files in other folders.
    mkdirSync(path.join(root, 'a'));
    mkdirSync(path.join(root, 'b'));
    await sandbox.writeFrom(`a/${temp}`, Readable.from([Buffer.alloc(3 * MB)]), { overwrite: true });
    await sandbox.writeFrom(`b/${temp}`, Readable.from([Buffer.alloc(3 * MB)]), { overwrite: true });
    expect(await sandbox.measure()).toBeGreaterThanOrEqual(6 * MB);
    await expect(sandbox.writeFrom(`b/more.bin`, Readable.from([Buffer.alloc(4 * MB)]), { overwrite: true })).rejects.toMatchObject({
      code: 'DISK_LIMIT',
    });
    open();
    await writing;
    expect(sandbox.used).toBe(await sandbox.measure());
  });

  it('measures the folder again when its figure is old, because the game writes too', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      writeFileSync(path.join(root, 'written-by-the-game.bin'), Buffer.alloc(9 * MB)); // not through the sandbox
      vi.setSystemTime(Date.now() + MEASURE_MAX_AGE_MS + 1);
      await expect(sandbox.writeFrom('upload.bin', Readable.from([Buffer.alloc(2 * MB)]), { overwrite: true })).rejects.toMatchObject({
        code: 'DISK_LIMIT',
      });
      expect(existsSync(path.join(root, 'upload.bin'))).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('names the game multiplied (hard links)', () => {
  it('counts and archives a file with many names once, and lists a folder of thousands of names in part', async () => {
    // One 1 MB file under 2,000 names (links cost the game no disk): as many copies, it would count 2 GB
    // against a 10 MB quota and a backup would pack 2 GB.
    mkdirSync(path.join(root, 'links'));
    writeFileSync(path.join(root, 'links/one'), Buffer.alloc(MB, 1));
    const { linkSync } = await import('node:fs');
    for (let i = 0; i < 2000; i++) linkSync(path.join(root, 'links/one'), path.join(root, `links/name-${i}`));
    expect(await sandbox.measure()).toBe(MB);
    const tree = await sandbox.openTree('links');
    let files = 0;
    let bytes = 0;
    for await (const item of tree.walk()) {
      const file = await item.open();
      if (!file) continue;
      files++;
      for await (const chunk of file.stream) bytes += (chunk as Buffer).length;
    }
    await tree.close();
    expect([files, bytes]).toEqual([1, MB]);
    // A listing stops at FILE_LIST_MAX names, however many the folder holds.
    for (let i = 2000; i < FILE_LIST_MAX + 100; i++) linkSync(path.join(root, 'links/one'), path.join(root, `links/name-${i}`));
    expect(await sandbox.list('links')).toHaveLength(FILE_LIST_MAX);
  });
});

describe('files that claim more than the disk', () => {
  it('a sparse file of a terabyte stops a packing before its bytes are read', async () => {
    // Free for the game (no blocks), but a backup, a download or an archive of it would gzip a terabyte.
    const { truncateSync } = await import('node:fs');
    writeFileSync(path.join(root, 'world.dat'), 'real data');
    writeFileSync(path.join(root, 'huge.bin'), '');
    truncateSync(path.join(root, 'huge.bin'), 1024 ** 4);
    const out = new PassThrough();
    let written = 0;
    out.on('data', (chunk: Buffer) => (written += chunk.length));
    const limit = packLimitOf(sandbox.quotaBytes);
    await expect(packTarGz(await openTrees(sandbox, ['/']), out, 1, undefined, limit)).rejects.toThrow(packLimitMessage(limit));
    // Twice the quota, and at least 1 GiB over it: a world that grew past its quota while running still packs.
    expect(limit).toBe(10 * MB + 1024 * MB);
    expect(packLimitMessage(limit)).toBe(
      "The files add up to more than 1034 MB, far beyond the server's disk, so they were not packed. Delete or shrink the largest (a file can claim far more than it stores), then try again.",
    );
    expect(written).toBeLessThan(MB);
  });
});

describe('bad input is a clear refusal, never a failure of ours', () => {
  const valid = async () =>
    tarGz(
      [
        { name: 'world/a.txt', type: 'file', size: 4 },
        { name: 'world/b.txt', type: 'file', size: 4 },
      ],
      { 'world/a.txt': 'AAAA', 'world/b.txt': 'BBBB' },
    );

  it('refuses damaged and truncated archives of every kind with INVALID_INPUT', async () => {
    const good = await valid();
    const tarOnly = gunzipSync(good);
    writeFileSync(path.join(root, 'cut.tar.gz'), good.subarray(0, Math.floor(good.length / 2)));
    writeFileSync(path.join(root, 'noise.tar.gz'), randomBytes(4096));
    writeFileSync(path.join(root, 'cut.tar'), tarOnly.subarray(0, 700));
    writeFileSync(path.join(root, 'noise.tar'), randomBytes(4096));
    writeFileSync(path.join(root, 'noise.zip'), randomBytes(4096));
    zipWith(path.join(root, 'ok.zip'), "z.writestr('a.txt', 'A' * 10000)");
    const zip = readFileSync(path.join(root, 'ok.zip'));
    writeFileSync(path.join(root, 'cut.zip'), zip.subarray(0, Math.floor(zip.length / 2)));
    for (const name of ['cut.tar.gz', 'noise.tar.gz', 'cut.tar', 'noise.tar', 'noise.zip', 'cut.zip']) {
      await expect(extractArchive(sandbox, name, `out-${name}`), name).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    outsideUntouched();
  });

  it('accepts names up to 255 bytes of multi-byte characters and refuses longer ones clearly', async () => {
    for (const count of [84, 85]) {
      const name = '界'.repeat(count); // 3 bytes each: 252 and 255 bytes
      await sandbox.writeFrom(name, body('wide'), { overwrite: true });
      expect(await read(name)).toBe('wide');
    }
    await expect(sandbox.writeFrom('界'.repeat(86), body('x'), { overwrite: true })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('keeps walking the folder it opened when the path is swapped for a link, and skips links swapped in midway', async () => {
    mkdirSync(path.join(root, 'd/sub'), { recursive: true });
    writeFileSync(path.join(root, 'd/a.txt'), 'inside');
    writeFileSync(path.join(root, 'd/sub/b.txt'), 'inside too');
    const tree = await sandbox.openTree('d');
    renameSync(path.join(root, 'd'), path.join(root, 'd-moved'));
    symlinkSync(outside, path.join(root, 'd'));
    const seen: string[] = [];
    for await (const item of tree.walk()) {
      if (item.parts.join('/') === 'd') {
        // Swap the subfolder for a link to the outside once the walk has begun.
        rmSync(path.join(root, 'd-moved/sub'), { recursive: true });
        symlinkSync(outside, path.join(root, 'd-moved/sub'));
      }
      const file = await item.open();
      if (file) for await (const chunk of file.stream) seen.push(String(chunk));
    }
    await tree.close();
    expect(seen).toEqual(['inside']);
    outsideUntouched();
  });
});

describe('writes stopped while the folder is packed or swapped', () => {
  it('ends a write in progress keeping nothing, refuses new ones with the reason, and takes them again after', async () => {
    const slow = new PassThrough();
    const writing = sandbox.writeFrom('/world.zip', slow, { overwrite: true });
    slow.write(Buffer.alloc(64 * 1024, 1));
    // The first bytes are on their way into the temporary file…
    await until(
      () => readdirSync(root).some((n) => n.endsWith('.part')),
      (seen) => seen,
    );
    const why = 'The server is going to sleep and its files are being stored.';
    await sandbox.stopWrites(why);
    await expect(writing).rejects.toMatchObject({ code: 'INVALID_STATE', message: why });
    // …and none of it stays, neither the file nor its temporary copy; the quota counts nothing for it.
    expect(readdirSync(root)).toEqual([]);
    expect(sandbox.used).toBe(0);
    await expect(sandbox.writeFrom('/late.txt', body('late'), { overwrite: true })).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: why,
    });
    expect(existsSync(path.join(root, 'late.txt'))).toBe(false);

    sandbox.resumeWrites();
    expect(await sandbox.writeFrom('/late.txt', body('late'), { overwrite: true })).toBe(4);
    expect(readFileSync(path.join(root, 'late.txt'), 'utf8')).toBe('late');
  });

  it('ends the writes in progress when it is closed (its folder may be swapped away next)', async () => {
    const slow = new PassThrough();
    const writing = sandbox.writeFrom('/restored-over.bin', slow, { overwrite: true });
    slow.write(Buffer.alloc(1024, 1));
    await until(
      () => readdirSync(root).some((n) => n.endsWith('.part')),
      (seen) => seen,
    );
    await sandbox.close();
    await expect(writing).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(readdirSync(root)).toEqual([]);
    // The suite's afterEach closes it again.
    sandbox = await Sandbox.open(root, 10 * MB);
  });
});
