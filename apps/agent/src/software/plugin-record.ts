import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  builtinPlugin,
  defaultPluginSettings,
  PLUGIN_RECORD_FILE,
  PLUGIN_UPLOAD_MAX_BYTES,
  pluginRecord,
  pluginSettingsProblem,
  pluginSettingsSchema,
  PLUGINS_FOLDER,
  PLUGINS_MAX,
  type AgentPluginChangeRequest,
  type InstalledPlugin,
  type PluginFolder,
  type PluginRecord,
} from '@spawnpoint/contracts';
import { z } from 'zod';
import { downloadPluginFile, type PluginDownloadPolicy } from './plugin-download.ts';
import { receivePluginJar } from './plugin-jar.ts';
import { SandboxError, type Sandbox } from '../files/sandbox.ts';

const RECORD_MAX_BYTES = 256 * 1024;
const emptyRecord = (): PluginRecord => ({ plugins: [], changedAt: new Date(0).toISOString() });

/** The record cannot be used as it is (changed by hand, or by game code, which can write the whole folder). */
export class PluginRecordError extends Error {}

/**
 * The server's plugin record, read through the sandbox and checked. A tenant (or the game's own code) can
 * write any byte of it, so nothing in it is trusted: it must parse, ids must be unique, and an uploaded
 * plugin's file must be a plain name in `plugins/`.
 */
export async function readPluginRecord(sandbox: Sandbox): Promise<PluginRecord> {
  let text: string | null;
  try {
    text = await sandbox.readTextIfExists(PLUGIN_RECORD_FILE, RECORD_MAX_BYTES);
  } catch (err) {
    throw new PluginRecordError(`${PLUGIN_RECORD_FILE} cannot be read (${err instanceof Error ? err.message : String(err)}). ${startOver}`);
  }
  if (text === null) return emptyRecord();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PluginRecordError(`${PLUGIN_RECORD_FILE} is not valid JSON. ${startOver}`);
  }
  const record = pluginRecord.safeParse(parsed);
  if (!record.success)
    throw new PluginRecordError(`${PLUGIN_RECORD_FILE} is not a plugin record: ${z.prettifyError(record.error)}. ${startOver}`);
  const ids = new Set<string>();
  for (const plugin of record.data.plugins) {
    if (ids.has(plugin.id)) throw new PluginRecordError(`${PLUGIN_RECORD_FILE} names ${plugin.id} twice. ${startOver}`);
    ids.add(plugin.id);
    if (plugin.source === 'upload' && (plugin.file !== plugin.id || !uploadedFileFits(plugin.id, plugin.folder)))
      throw new PluginRecordError(`${PLUGIN_RECORD_FILE}: the plugin ${plugin.id} names another file. ${startOver}`);
  }
  return record.data;
}
/** An owner's file: a `.js` for the built-in runtime in `plugins/`, or a `.jar` in `plugins/` or `mods/`. */
const uploadedFileFits = (file: string, folder: PluginFolder) => file.endsWith('.jar') || (file.endsWith('.js') && folder === 'plugins');
const startOver = 'Delete it in the file manager to start the plugin list over (your plugin files stay in plugins/).';

async function writeRecord(sandbox: Sandbox, plugins: InstalledPlugin[]): Promise<PluginRecord> {
  const record: PluginRecord = { plugins, changedAt: new Date().toISOString() };
  // Written only as it will be read back: a record the next read would refuse would hide every plugin.
  const checked = pluginRecord.safeParse(record);
  if (!checked.success)
    throw invalid(`The plugin list would not be valid (${checked.error.issues[0]?.message ?? 'unknown'}); nothing was changed.`);
  await sandbox.ensureDir(PLUGINS_FOLDER);
  // The sandbox writes a temporary file and renames it: a failed write leaves the old record whole.
  await sandbox.writeFrom(PLUGIN_RECORD_FILE, Readable.from([Buffer.from(`${JSON.stringify(record, null, 2)}\n`)]), { overwrite: true });
  return record;
}

// The API checks requests field by field before they come here; this is the node's own guard.
const invalid = (message: string) => new SandboxError('INVALID_INPUT', message);

/** Checks a first-party plugin's settings: the checked values, or an INVALID_INPUT naming the field. */
export function checkedSettings(id: string, settings: unknown): Record<string, unknown> {
  const plugin = builtinPlugin(id);
  if (!plugin) throw invalid(`There is no plugin ${id} in the catalogue.`);
  const parsed = pluginSettingsSchema(plugin).safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(`${String(issue.path[0] ?? 'settings')}: ${issue.message}`);
  }
  const problem = pluginSettingsProblem(id, parsed.data);
  if (problem) throw invalid(problem.message);
  return parsed.data;
}

/** The fields a record entry has whatever its source, for a new entry. */
const entryBase = { file: null, folder: 'plugins', sha256: null, sha512: null, projectId: null, versionId: null, settings: {} } as const;

/** A plugin's file on disk; a jar is `name.jar`, or `name.jar.disabled` while it is turned off. */
const onDisk = (p: InstalledPlugin, enabled = p.enabled) => [p.folder, isJar(p) && !enabled ? `${p.file!}.disabled` : p.file!];
const isJar = (p: InstalledPlugin) => p.file?.endsWith('.jar') === true;

/** One change to the record (the caller holds the server's plugin lock). */
export async function changePlugins(
  sandbox: Sandbox,
  request: AgentPluginChangeRequest,
  policy: PluginDownloadPolicy,
): Promise<PluginRecord> {
  const record = await readPluginRecord(sandbox);
  const plugins = [...record.plugins];
  if (request.action === 'install-project' || request.action === 'update')
    throw invalid('The control plane resolves catalogue versions; the node installs files only.');
  if (request.action === 'install-file') {
    const file = request.file;
    const id = `${file.source}:${file.projectId}`;
    const existing = plugins.find((p) => p.id === id);
    if (!existing && plugins.length >= PLUGINS_MAX)
      throw new SandboxError('INVALID_STATE', `A server has at most ${PLUGINS_MAX} plugins. Remove one first.`);
    // Another plugin's file of the same name would be replaced: refused.
    if (plugins.some((p) => p.id !== id && p.folder === file.folder && p.file === file.fileName))
      throw new SandboxError('INVALID_STATE', `${file.folder}/${file.fileName} belongs to another plugin. Remove that one first.`);
    await downloadPluginFile(sandbox, file, policy);
    // An update with a new file name: the old file goes once the new one is in place.
    if (existing?.file && existing.file !== file.fileName) await sandbox.remove(onDisk(existing)).catch(() => undefined);
    const entry: InstalledPlugin = {
      ...entryBase,
      id,
      source: file.source,
      name: file.name,
      version: file.version,
      enabled: true,
      file: file.fileName,
      folder: file.folder,
      sha256: file.sha512 ? null : file.sha256,
      sha512: file.sha512,
      projectId: file.projectId,
      versionId: file.versionId,
      installedAt: new Date().toISOString(),
    };
    return writeRecord(sandbox, existing ? plugins.map((p) => (p.id === id ? entry : p)) : [...plugins, entry]);
  }
  const index = plugins.findIndex((p) => p.id === request.id);
  const found = plugins[index];
  if (request.action === 'install') {
    const plugin = builtinPlugin(request.id);
    if (!plugin) throw invalid(`There is no plugin ${request.id} in the catalogue.`);
    if (found) throw new SandboxError('INVALID_STATE', `${plugin.name} is already installed.`);
    if (plugins.length >= PLUGINS_MAX)
      throw new SandboxError('INVALID_STATE', `A server has at most ${PLUGINS_MAX} plugins. Remove one first.`);
    plugins.push({
      ...entryBase,
      id: plugin.id,
      source: 'builtin',
      name: plugin.name,
      version: plugin.version,
      enabled: true,
      file: null,
      sha256: null,
      settings: defaultPluginSettings(plugin),
      installedAt: new Date().toISOString(),
    });
    return writeRecord(sandbox, plugins);
  }
  if (!found) throw new SandboxError('NOT_FOUND', `The plugin ${request.id} is not installed.`);
  switch (request.action) {
    case 'enable':
    case 'disable': {
      const enabled = request.action === 'enable';
      // A jar is turned off by its name, so Java does not load it.
      if (isJar(found) && found.enabled !== enabled)
        await sandbox.rename(onDisk(found), onDisk(found, enabled)).catch((err: unknown) => {
          if (!(err instanceof SandboxError && err.code === 'NOT_FOUND')) throw err;
        });
      plugins[index] = { ...found, enabled };
      return writeRecord(sandbox, plugins);
    }
    case 'settings':
      if (found.source !== 'builtin') throw invalid(`${found.name} has no settings here: it reads its own files.`);
      plugins[index] = { ...found, settings: checkedSettings(found.id, request.settings) };
      return writeRecord(sandbox, plugins);
    case 'remove': {
      plugins.splice(index, 1);
      // The record first: a plugin whose file could not be deleted is no longer loaded either way.
      const written = await writeRecord(sandbox, plugins);
      if (found.file)
        await sandbox.remove(onDisk(found)).catch((err: unknown) => {
          if (!(err instanceof SandboxError && err.code === 'NOT_FOUND')) throw err;
        });
      return written;
    }
  }
}

/**
 * An owner's own plugin file: written into `plugins/` through the sandbox (quota counted, links refused),
 * then recorded with its SHA-256. Replacing a file of the same name keeps its enabled state.
 */
export async function uploadPlugin(sandbox: Sandbox, fileName: string, bytes: Buffer): Promise<PluginRecord> {
  if (bytes.length === 0) throw invalid('The plugin file is empty.');
  if (bytes.length > PLUGIN_UPLOAD_MAX_BYTES) throw invalid(`A plugin file is at most ${PLUGIN_UPLOAD_MAX_BYTES / 1024} KiB.`);
  // A .js plugin is text: a binary renamed to .js (an executable, an archive) is refused.
  if (bytes.includes(0) || !isUtf8(bytes)) throw invalid('This is not a JavaScript file: it holds binary data.');
  const record = await readPluginRecord(sandbox);
  const existing = record.plugins.find((p) => p.id === fileName);
  if (existing && existing.source !== 'upload') throw invalid(`${fileName} is the name of an installed plugin.`);
  if (!existing && record.plugins.length >= PLUGINS_MAX)
    throw new SandboxError('INVALID_STATE', `A server has at most ${PLUGINS_MAX} plugins. Remove one first.`);
  await sandbox.ensureDir(PLUGINS_FOLDER);
  await sandbox.writeFrom([PLUGINS_FOLDER, fileName], Readable.from([bytes]), { overwrite: true });
  const entry: InstalledPlugin = {
    ...entryBase,
    id: fileName,
    source: 'upload',
    name: fileName.replace(/\.js$/, ''),
    version: '',
    enabled: existing?.enabled ?? true,
    file: fileName,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    installedAt: new Date().toISOString(),
  };
  return writeRecord(sandbox, existing ? record.plugins.map((p) => (p.id === fileName ? entry : p)) : [...record.plugins, entry]);
}

/**
 * An owner's own plugin or mod jar for a Java server: received into `folder` and checked (plugin-jar.ts),
 * then recorded with its name and version from its descriptor and its SHA-256. Replacing a jar of the same
 * name keeps it recorded once, turned on.
 */
export async function uploadPluginJar(sandbox: Sandbox, folder: PluginFolder, fileName: string, body: Readable): Promise<PluginRecord> {
  const record = await readPluginRecord(sandbox);
  const existing = record.plugins.find((p) => p.id === fileName);
  const owner = record.plugins.find((p) => p.source !== 'upload' && p.folder === folder && p.file === fileName);
  if (owner || (existing && existing.source !== 'upload'))
    throw new SandboxError('INVALID_STATE', `${folder}/${fileName} belongs to ${(owner ?? existing)!.name}. Remove that one first.`);
  if (!existing && record.plugins.length >= PLUGINS_MAX)
    throw new SandboxError('INVALID_STATE', `A server has at most ${PLUGINS_MAX} plugins. Remove one first.`);
  const jar = await receivePluginJar(sandbox, folder, fileName, body);
  // Another folder's copy under the same name (the server's software changed) is no longer this entry's.
  if (existing && existing.folder !== folder) await sandbox.remove(onDisk(existing)).catch(() => undefined);
  const entry: InstalledPlugin = {
    ...entryBase,
    id: fileName,
    source: 'upload',
    name: jar.name,
    version: jar.version,
    enabled: true,
    file: fileName,
    folder,
    sha256: jar.sha256,
    installedAt: new Date().toISOString(),
  };
  return writeRecord(sandbox, existing ? record.plugins.map((p) => (p.id === fileName ? entry : p)) : [...record.plugins, entry]);
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** What the game loads: first-party plugins with checked settings, and (in the cage only) the owner's files. */
export interface LaunchPlugins {
  builtin: { id: string; settings: Record<string, unknown> }[];
  uploaded: string[];
  changedAt: string;
  /** Said in the console at the start (a plugin skipped, and why). */
  notices: string[];
}

export async function launchPlugins(sandbox: Sandbox, caged: boolean): Promise<LaunchPlugins> {
  const record = await readPluginRecord(sandbox);
  const result: LaunchPlugins = { builtin: [], uploaded: [], changedAt: record.changedAt, notices: [] };
  for (const plugin of record.plugins) {
    if (!plugin.enabled) continue;
    if (plugin.source === 'builtin') {
      if (!builtinPlugin(plugin.id)) {
        result.notices.push(`The plugin ${plugin.id} is not in this node's catalogue: it was not loaded.`);
        continue;
      }
      try {
        result.builtin.push({ id: plugin.id, settings: checkedSettings(plugin.id, plugin.settings) });
      } catch (err) {
        result.notices.push(
          `${plugin.name} was not loaded: its settings are not valid (${(err as Error).message}). Fix them on the Plugins page.`,
        );
      }
      continue;
    }
    // Jars (catalogue or the owner's) are read by the Java server from its plugins/ or mods/ folder, not by our launcher.
    if (plugin.source !== 'upload' || isJar(plugin)) continue;
    if (!caged) {
      result.notices.push(`${plugin.file} was not loaded: this node runs game servers without the cage, so it runs no code of yours.`);
      continue;
    }
    const entry = await sandbox.stat([PLUGINS_FOLDER, plugin.file!]).catch(() => null);
    if (entry?.type !== 'file') {
      result.notices.push(`${plugin.file} was not loaded: plugins/${plugin.file} is missing or not a plain file.`);
      continue;
    }
    result.uploaded.push(plugin.file!);
  }
  return result;
}
