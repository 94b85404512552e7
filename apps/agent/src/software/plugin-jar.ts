import type { Readable } from 'node:stream';
import { PLUGIN_JAR_MAX_BYTES, type PluginFolder } from '@spawnpoint/contracts';
import yauzl from 'yauzl';
import { writeCheckedJar } from '../files/jar-write.ts';
import { SandboxError, type Sandbox } from '../files/sandbox.ts';

const refuse = (message: string) => new SandboxError('INVALID_INPUT', message);
// A descriptor larger than this is no plugin's: it is not read.
const DESCRIPTOR_MAX_BYTES = 64 * 1024;
// A jar with more entries than this is not looked through for its descriptor.
const ENTRIES_MAX = 100_000;

/** What a plugin or mod jar says about itself, from its descriptor. */
export interface JarIdentity {
  name: string;
  version: string;
}

/** The descriptor that makes a jar a plugin (Paper, Spigot, Bukkit) or a Fabric mod, by the folder it goes to. */
const descriptors: Record<PluginFolder, string[]> = {
  plugins: ['plugin.yml', 'paper-plugin.yml'],
  mods: ['fabric.mod.json'],
};

/**
 * Receives an owner's jar into `folder`: written under a hidden temporary name through the sandbox (the
 * disk quota counts it), at most PLUGIN_JAR_MAX_BYTES, hashed as it arrives, then opened as a zip and
 * looked through for the descriptor Java reads (`plugin.yml` / `paper-plugin.yml`, or `fabric.mod.json`
 * for mods). Only a jar that holds one is renamed into place; anything else (a renamed executable, a zip
 * without a descriptor, a cut-off upload) is removed, so nothing half-written stays.
 */
export async function receivePluginJar(
  sandbox: Sandbox,
  folder: PluginFolder,
  fileName: string,
  body: Readable,
): Promise<JarIdentity & { sha256: string }> {
  return writeCheckedJar(
    sandbox,
    { folder, fileName },
    body,
    { limit: PLUGIN_JAR_MAX_BYTES, tooLarge: `A plugin file is at most ${PLUGIN_JAR_MAX_BYTES / 1024 / 1024} MiB.`, algorithm: 'sha256' },
    async ({ temp, bytes, digest }) => {
      if (bytes === 0) throw refuse('The plugin file is empty.');
      return { ...(await jarIdentity(sandbox, temp, folder, fileName)), sha256: digest };
    },
  );
}

/** Opens the jar as a zip and reads its descriptor's name and version; refused when it has none. */
async function jarIdentity(sandbox: Sandbox, target: string[], folder: PluginFolder, fileName: string): Promise<JarIdentity> {
  const wanted = descriptors[folder];
  const kind = folder === 'mods' ? 'Fabric mod' : 'plugin';
  const notOne = refuse(
    `${fileName} is not a ${kind}: a ${kind} is a .jar that holds ${wanted.join(' or ')}, and this file does not. Nothing was installed.`,
  );
  const { handle } = await sandbox.openFile(target);
  try {
    let zip: yauzl.ZipFile;
    try {
      zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
        yauzl.fromFd(handle.fd, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, z) =>
          err || !z ? reject(err ?? new Error('unreadable')) : resolve(z),
        ),
      );
    } catch {
      throw notOne;
    }
    if (zip.entryCount > ENTRIES_MAX) throw notOne;
    const text = await new Promise<{ name: string; text: string } | null>((resolve, reject) => {
      zip.on('error', () => reject(notOne));
      zip.on('end', () => resolve(null));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!wanted.includes(entry.fileName)) return zip.readEntry();
        if (entry.uncompressedSize > DESCRIPTOR_MAX_BYTES) return reject(notOne);
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(notOne);
          const chunks: Buffer[] = [];
          let size = 0;
          stream.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > DESCRIPTOR_MAX_BYTES) stream.destroy(new Error('too large'));
            else chunks.push(chunk);
          });
          stream.on('error', () => reject(notOne));
          stream.on('end', () => resolve({ name: entry.fileName, text: Buffer.concat(chunks).toString('utf8') }));
        });
      });
      zip.readEntry();
    });
    // Not zip.close(): that would close the descriptor, which belongs to `handle` (closed below).
    if (!text) throw notOne;
    const identity = text.name.endsWith('.json') ? fabricIdentity(text.text) : yamlIdentity(text.text);
    return {
      name: clean(identity.name, 100) || fileName.replace(/\.jar$/, ''),
      version: clean(identity.version, 40),
    };
  } finally {
    await handle.close();
  }
}

/** `name:` and `version:` at the top level of plugin.yml (no YAML library: two scalar keys is all we read). */
function yamlIdentity(text: string): { name: string; version: string } {
  const scalar = (key: string) => {
    const match = new RegExp(`^${key}:[ \\t]*(.*)$`, 'm').exec(text);
    // Cut before any pattern runs, and the comment found by hand: a regex like /[ \t]+#.*$/ takes quadratic
    // time on a line of 60,000 spaces (a jar of a few hundred bytes), and the agent's loop is every server's.
    let value = (match?.[1] ?? '').slice(0, 200);
    const comment = value.search(/[ \t]#/);
    if (comment >= 0) value = value.slice(0, comment);
    return value.trimEnd().replace(/^(['"])(.*)\1$/, '$2');
  };
  return { name: scalar('name'), version: scalar('version') };
}

function fabricIdentity(text: string): { name: string; version: string } {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    return { name: str(parsed.name) || str(parsed.id), version: str(parsed.version) };
  } catch {
    return { name: '', version: '' };
  }
}

/** The jar's own words are shown on the page: control characters out, length capped. */
function clean(value: string, max: number): string {
  return Array.from(value.replace(/\p{Cc}/gu, '').trim())
    .slice(0, max)
    .join('');
}
