import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { PLUGIN_JAR_MAX_BYTES, type PluginFileInstall } from '@spawnpoint/contracts';
import { writeCheckedJar } from '../files/jar-write.ts';
import { SandboxError, type Sandbox } from '../files/sandbox.ts';

/** Where plugin files may be fetched from, and whether plain HTTP is allowed (a test's or a mirror's). */
export interface PluginDownloadPolicy {
  hosts: string[];
  allowHttp: boolean;
}

const REDIRECTS_MAX = 3;
// A download that sends nothing for this long is given up.
const STALL_MS = 30_000;
const refuse = (message: string) => new SandboxError('INVALID_INPUT', message);

/**
 * Fetches one catalogue file into the server folder and returns its final name. The address came from a
 * catalogue's answer, so the node fetches only from the configured hosts (every redirect checked again:
 * no request of the node reaches its own network), counts bytes against the declared size and the cap,
 * hashes while writing, and checks that a jar is a zip. The file is written under a hidden temporary
 * name through the sandbox (the disk quota counts it) and renamed into place only once every check
 * passed; a failure removes it, so nothing half-written stays.
 */
export async function downloadPluginFile(sandbox: Sandbox, file: PluginFileInstall, policy: PluginDownloadPolicy): Promise<void> {
  if (!file.sha512 && !file.sha256) throw refuse(`${file.name} ${file.version} publishes no hash, so it cannot be checked.`);
  const response = await fetchAllowed(file.url, policy, file.name);
  const declared = Number(response.headers.get('content-length') ?? 'NaN');
  const limit = Math.min(file.size ?? PLUGIN_JAR_MAX_BYTES, PLUGIN_JAR_MAX_BYTES);
  if (declared > limit) {
    await response.body?.cancel();
    throw refuse(`${file.name} is larger than it should be (${declared} bytes), so it was not installed.`);
  }
  let stall: NodeJS.Timeout | null = null;
  const source = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  const armStall = () => {
    if (stall) clearTimeout(stall);
    stall = setTimeout(() => source.destroy(refuse(`The download of ${file.name} stalled. Try again later.`)), STALL_MS);
  };
  armStall();
  try {
    await writeCheckedJar(
      sandbox,
      { folder: file.folder, fileName: file.fileName },
      source,
      {
        limit,
        tooLarge: `${file.name} is larger than it should be, so it was not installed.`,
        algorithm: file.sha512 ? 'sha512' : 'sha256',
        onChunk: armStall,
      },
      async ({ digest, bytes, head }) => {
        if (stall) clearTimeout(stall);
        if (digest !== (file.sha512 ?? file.sha256))
          throw refuse(`${file.name} ${file.version} did not match its published hash, so it was not installed. Try again later.`);
        if (file.size !== null && bytes !== file.size)
          throw refuse(`${file.name} arrived incomplete, so it was not installed. Try again later.`);
        // A jar is a zip archive: anything else named like a plugin is refused.
        if (head.toString('latin1') !== 'PK\u0003\u0004')
          throw refuse(`${file.fileName} is not a Java plugin (not a jar file), so it was not installed.`);
      },
    );
  } finally {
    if (stall) clearTimeout(stall);
  }
}

async function fetchAllowed(address: string, policy: PluginDownloadPolicy, name: string): Promise<Response> {
  let url = address;
  for (let hop = 0; hop <= REDIRECTS_MAX; hop++) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refuse(`The catalogue gave no valid address for ${name}.`);
    }
    if (!(parsed.protocol === 'https:' || (policy.allowHttp && parsed.protocol === 'http:')) || !policy.hosts.includes(parsed.host))
      throw refuse(`${name} would be downloaded from ${parsed.host}, which is not a catalogue's download host, so it was not.`);
    let response: Response;
    try {
      response = await fetch(parsed, { redirect: 'manual', signal: AbortSignal.timeout(10 * 60_000) });
    } catch {
      throw new SandboxError('INVALID_STATE', `The download server for ${name} cannot be reached. Try again later.`);
    }
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      url = new URL(response.headers.get('location')!, parsed).toString();
      await response.body?.cancel();
      continue;
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new SandboxError('INVALID_STATE', `The download server answered ${response.status} for ${name}. Try again later.`);
    }
    return response;
  }
  throw refuse(`The download of ${name} was redirected too often.`);
}
