import { faviconOf, SERVER_ICON_FILE, SERVER_ICON_MAX_BYTES, serverIconProblem } from '@spawnpoint/contracts';
import { parseProperties, type Properties } from '../server/properties.ts';
import { launchPlugins, PluginRecordError, type LaunchPlugins } from '../software/plugin-record.ts';
import { pathParts, SandboxError, type Sandbox } from '../files/sandbox.ts';

/** What a game reads from its folder, read by the agent through the sandbox and checked before a start. */
export interface GameSettings {
  properties: Properties;
  /** The world folder, relative to the server folder, checked to stay inside it. */
  levelName: string;
  /** server-icon.png as a status answer's favicon, when there is one that passes `serverIconProblem`. */
  favicon: string | null;
  /** The plugins the game loads, from the server's plugin record. */
  plugins: LaunchPlugins;
}

/**
 * The player slots a server runs with: `max-players` of its server.properties, never more than the
 * plan's (a tenant can write any number there with the file editor).
 */
export function effectiveMaxPlayers(properties: Properties, planMax: number): number {
  const value = Number(properties.get('max-players'));
  return Number.isInteger(value) && value >= 1 ? Math.min(value, planMax) : planMax;
}

/** A refusal to start that the console shows as it is. */
export class LaunchRefused extends Error {}

/**
 * Reads server.properties through the sandbox and checks every path-valued setting: `level-name` must be
 * a folder inside the server folder (no `..`, not absolute), reached without a link. A tenant can write
 * any byte of that file with the file editor, so the typed form is not the only way in.
 */
export async function readGameSettings(sandbox: Sandbox, options: { caged: boolean }): Promise<GameSettings> {
  let text: string | null;
  try {
    text = await sandbox.readTextIfExists('server.properties');
  } catch (err) {
    throw new LaunchRefused(
      `server.properties cannot be read (${err instanceof Error ? err.message : String(err)}). Delete it in the file manager and start again.`,
    );
  }
  const properties = parseProperties(text ?? '');
  const raw = properties.get('level-name') || 'world';
  let parts: string[];
  try {
    if (raw.startsWith('/') || raw.includes('\\') || /^[A-Za-z]:/.test(raw)) throw new SandboxError('INVALID_INPUT', 'absolute');
    parts = pathParts(raw);
    if (parts.length === 0) throw new SandboxError('INVALID_INPUT', 'empty');
  } catch {
    throw new LaunchRefused(
      `level-name=${raw} in server.properties must name a folder inside the server folder (for example "world"). Change it and start again.`,
    );
  }
  await refuseLinks(sandbox, parts, `level-name=${raw}`);
  const icon = await readServerIcon(sandbox).catch(() => null);
  let plugins: LaunchPlugins;
  try {
    plugins = await launchPlugins(sandbox, options.caged);
  } catch (err) {
    if (err instanceof PluginRecordError) throw new LaunchRefused(err.message);
    throw err;
  }
  return { properties, levelName: parts.join('/'), favicon: icon && serverIconProblem(icon) === null ? faviconOf(icon) : null, plugins };
}

/**
 * server-icon.png through the sandbox (never through a link), or null when there is none. A tenant can put
 * any bytes there with the file manager: at most the icon cap is read, and callers check the header.
 */
export async function readServerIcon(sandbox: Sandbox): Promise<Buffer | null> {
  let opened: Awaited<ReturnType<Sandbox['readStream']>>;
  try {
    opened = await sandbox.readStream(SERVER_ICON_FILE);
  } catch (err) {
    if (err instanceof SandboxError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
  const { stream, size } = opened;
  if (size > SERVER_ICON_MAX_BYTES) {
    stream.destroy();
    throw new SandboxError('INVALID_INPUT', `${SERVER_ICON_FILE} is larger than ${SERVER_ICON_MAX_BYTES / 1024} KiB.`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > SERVER_ICON_MAX_BYTES) {
      stream.destroy();
      throw new SandboxError('INVALID_INPUT', `${SERVER_ICON_FILE} is larger than ${SERVER_ICON_MAX_BYTES / 1024} KiB.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Refuses a path whose folders exist as anything but real folders (a link planted by game code, a file).
 * Missing parts are fine: the game creates them.
 */
export async function refuseLinks(sandbox: Sandbox, parts: string[], what: string): Promise<void> {
  for (let i = 1; i <= parts.length; i++) {
    const entry = await sandbox.stat(parts.slice(0, i)).catch((err: unknown) => {
      if (err instanceof SandboxError && err.code === 'NOT_FOUND') return null;
      throw new LaunchRefused(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    });
    if (!entry) return;
    if (entry.type !== 'directory')
      throw new LaunchRefused(
        `${what}: ${parts.slice(0, i).join('/')} is a ${entry.type === 'symlink' ? 'link' : 'file'}, not a folder. Delete it in the file manager and start again.`,
      );
  }
}

/**
 * Links at the top of the folder and in the folders the game writes are refused before a start: the
 * file manager and archives never create links, so one there was planted by game code to redirect the
 * next writes.
 */
export async function refuseLinksIn(sandbox: Sandbox, folders: string[][]): Promise<void> {
  for (const folder of folders) {
    const entries = await sandbox.list(folder).catch(() => []);
    const link = entries.find((e) => e.type === 'symlink');
    if (link)
      throw new LaunchRefused(
        `${[...folder, link.name].join('/')} is a link, which is not allowed in a server folder. Delete it in the file manager and start again.`,
      );
  }
}
