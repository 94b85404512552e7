/**
 * Plugins of a server (docs/guide.md, Plugins): the first-party catalogue of the built-in runtime, the
 * record of what a server has installed (kept in its own folder, so a backup and its restore carry plugins
 * and their record together), and the API's requests. One module for the API, the agent, the game's
 * launcher and the page.
 */
import { z } from 'zod';
import { CONTROLS } from './schedules.ts';
import { parseKitLine, UPLOADED_PLUGIN_NAME } from './plugin-text.ts';

/** The record of a server's plugins, inside its folder: read and checked by the agent before every start. */
export const PLUGINS_FOLDER = 'plugins';
export const PLUGIN_RECORD_FILE = 'plugins/spawnpoint-plugins.json';
/** A plugin file of the owner's own (JavaScript for the built-in runtime) is at most this large. */
export const PLUGIN_UPLOAD_MAX_BYTES = 512 * 1024;
/** Plugins one server may have installed. */
export const PLUGINS_MAX = 40;

/** What a setting of a first-party plugin is, so the page can draw a field and the agent check a value. */
export type PluginSettingField =
  | { key: string; label: string; help: string; kind: 'text'; default: string; maxLength: number }
  | { key: string; label: string; help: string; kind: 'lines'; default: string[]; maxItems: number; maxLength: number }
  | { key: string; label: string; help: string; kind: 'number'; default: number; min: number; max: number; unit: string }
  | { key: string; label: string; help: string; kind: 'boolean'; default: boolean };

export interface BuiltinPlugin {
  id: string;
  name: string;
  summary: string;
  version: string;
  /** Minecraft versions of the built-in runtime it works with. */
  versions: string[];
  /** What players type, for the catalogue card. */
  commands: { usage: string; info: string }[];
  settings: PluginSettingField[];
}

// Every version of the built-in runtime: the first-party plugins use only what flying-squid offers on all.
const allBuiltinVersions = ['1.21.4', '1.21.3', '1.21.1', '1.20.5', '1.20.4', '1.19.4', '1.18.2', '1.17.1', '1.16.5', '1.12.2', '1.8.8'];

/** Plugins written here for the built-in runtime; their code ships with the node (apps/agent/src/plugins). */
export const builtinPlugins: BuiltinPlugin[] = [
  {
    id: 'welcome',
    name: 'Welcome message',
    summary: 'Greets every player who joins, and tells everybody else who arrived.',
    version: '1.0.0',
    versions: allBuiltinVersions,
    commands: [],
    settings: [
      {
        key: 'message',
        label: 'Message to the player',
        help: '{player} becomes the name. & codes colour it.',
        kind: 'text',
        default: '&eWelcome to the server, {player}!',
        maxLength: 200,
      },
      {
        key: 'announce',
        label: 'Message to everybody else',
        help: 'Leave empty to say nothing.',
        kind: 'text',
        default: '&7{player} arrived.',
        maxLength: 200,
      },
    ],
  },
  {
    id: 'homes',
    name: 'Homes',
    summary: 'Players save places with /sethome and go back with /home.',
    version: '1.0.0',
    versions: allBuiltinVersions,
    commands: [
      { usage: '/sethome [name]', info: 'Save where you stand' },
      { usage: '/home [name]', info: 'Go back to a saved home' },
      { usage: '/homes', info: 'List your homes' },
      { usage: '/delhome <name>', info: 'Forget a home' },
    ],
    settings: [{ key: 'maxHomes', label: 'Homes per player', help: '', kind: 'number', default: 3, min: 1, max: 20, unit: '' }],
  },
  {
    id: 'tpa',
    name: 'Teleport requests',
    summary: 'Ask to teleport to another player with /tpa; they accept or deny.',
    version: '1.0.0',
    versions: allBuiltinVersions,
    commands: [
      { usage: '/tpa <player>', info: 'Ask to teleport to a player' },
      { usage: '/tpaccept', info: 'Let the player who asked come to you' },
      { usage: '/tpdeny', info: 'Refuse the request' },
    ],
    settings: [
      {
        key: 'timeoutSeconds',
        label: 'A request expires after',
        help: '',
        kind: 'number',
        default: 60,
        min: 10,
        max: 600,
        unit: 'seconds',
      },
    ],
  },
  {
    id: 'kits',
    name: 'Kits',
    summary: 'Players take a ready-made set of items with /kit, once per cooldown.',
    version: '1.0.0',
    versions: allBuiltinVersions,
    commands: [
      { usage: '/kit', info: 'List the kits' },
      { usage: '/kit <name>', info: 'Take a kit' },
    ],
    settings: [
      {
        key: 'kits',
        label: 'Kits',
        help: 'One kit per line: a name, a colon, then items with counts, for example "starter: stone_sword 1, bread 8".',
        kind: 'lines',
        default: ['starter: stone_sword 1, stone_pickaxe 1, bread 8', 'builder: oak_planks 64, torch 16'],
        maxItems: 20,
        maxLength: 300,
      },
      {
        key: 'cooldownMinutes',
        label: 'Time between two kits',
        help: '0 lets players take a kit at any time.',
        kind: 'number',
        default: 60,
        min: 0,
        max: 10080,
        unit: 'minutes',
      },
    ],
  },
  {
    id: 'broadcasts',
    name: 'Timed broadcasts',
    summary: 'Says your messages in chat in turn, every few minutes.',
    version: '1.0.0',
    versions: allBuiltinVersions,
    commands: [],
    settings: [
      {
        key: 'messages',
        label: 'Messages',
        help: 'One message per line, said in turn. & codes colour them.',
        kind: 'lines',
        default: ['&6Tip: &finvite friends from the dashboard.', '&6Tip: &fbe kind to each other.'],
        maxItems: 20,
        maxLength: 200,
      },
      { key: 'intervalSeconds', label: 'Every', help: '', kind: 'number', default: 300, min: 10, max: 86400, unit: 'seconds' },
    ],
  },
  {
    id: 'spawn',
    name: 'Spawn',
    summary: 'Players return to the world spawn with /spawn; an operator moves it with /setspawn.',
    version: '1.0.0',
    versions: allBuiltinVersions,
    commands: [
      { usage: '/spawn', info: 'Go to the world spawn' },
      { usage: '/setspawn', info: 'Operators: make where you stand the spawn' },
    ],
    settings: [],
  },
];

export const builtinPluginIds = builtinPlugins.map((p) => p.id);
export function builtinPlugin(id: string): BuiltinPlugin | undefined {
  return builtinPlugins.find((p) => p.id === id);
}

// Settings are typed by people and read by the game: no control characters (a line break would end a chat
// line, an escape would reach the console).
const noControl = (s: string) => !CONTROLS.test(s);

function fieldSchema(field: PluginSettingField): z.ZodType {
  switch (field.kind) {
    case 'text':
      return z
        .string()
        .max(field.maxLength, `At most ${field.maxLength} characters.`)
        .refine(noControl, 'Line breaks and control characters are not allowed.');
    case 'lines':
      return z
        .array(
          z
            .string()
            .max(field.maxLength, `At most ${field.maxLength} characters a line.`)
            .refine(noControl, 'Control characters are not allowed.'),
        )
        .max(field.maxItems, `At most ${field.maxItems} lines.`);
    case 'number':
      return z
        .number({ error: 'Enter a whole number.' })
        .int('Enter a whole number.')
        .min(field.min, `At least ${field.min}.`)
        .max(field.max, `At most ${field.max}.`);
    case 'boolean':
      return z.boolean();
  }
}

/**
 * The settings of a first-party plugin, checked field by field; a missing field takes its default, an
 * unknown one is dropped (a plugin's newer version may have removed it).
 */
export function pluginSettingsSchema(plugin: BuiltinPlugin) {
  const shape: Record<string, z.ZodType> = {};
  for (const field of plugin.settings) shape[field.key] = fieldSchema(field).default(field.default as never);
  return z.object(shape).strip();
}
export function defaultPluginSettings(plugin: BuiltinPlugin): Record<string, unknown> {
  return Object.fromEntries(plugin.settings.map((f) => [f.key, f.default]));
}

/** Extra checks a plugin's settings need beyond their fields' (kit lines must parse). */
export function pluginSettingsProblem(id: string, settings: Record<string, unknown>): { key: string; message: string } | null {
  if (id === 'kits') {
    const names = new Set<string>();
    for (const line of (settings.kits as string[] | undefined) ?? []) {
      if (line.trim() === '') continue;
      const kit = parseKitLine(line);
      if (typeof kit === 'string') return { key: 'kits', message: kit };
      if (names.has(kit.name)) return { key: 'kits', message: `Two kits are called ${kit.name}.` };
      names.add(kit.name);
    }
  }
  return null;
}

export const pluginSource = z.enum(['builtin', 'upload', 'modrinth', 'hangar']);
export type PluginSource = z.infer<typeof pluginSource>;
/** Where the Java catalogues' plugins come from. */
export const javaPluginSources = ['modrinth', 'hangar'] as const;
export type JavaPluginSource = (typeof javaPluginSources)[number];
export const javaPluginSourceNames: Record<JavaPluginSource, string> = { modrinth: 'Modrinth', hangar: 'Hangar' };

/** A plugin (or mod) jar of a Java server, as its catalogue names it: a plain file name, never a path. */
export const jarFileName = z
  .string()
  .min(5)
  .max(128)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._+-]*\.jar$/,
    'A plugin file is a .jar with letters, digits, dots, dashes, plus signs or underscores in its name.',
  );
/** A jar downloaded from a catalogue is at most this large. */
export const PLUGIN_JAR_MAX_BYTES = 64 * 1024 * 1024;
/** Java servers load plugins from `plugins/`; Fabric loads mods from `mods/`. */
export const pluginFolder = z.enum(['plugins', 'mods']);
export type PluginFolder = z.infer<typeof pluginFolder>;

/** Where a Java server's software loads jars from: Paper and Purpur `plugins/`, Fabric `mods/`, Vanilla none. */
export function pluginFolderFor(software: string): PluginFolder | null {
  if (software === 'paper' || software === 'purpur') return 'plugins';
  if (software === 'fabric') return 'mods';
  return null;
}

/** An owner's own plugin or mod jar, streamed to `plugins/jar` with its name (and size, to refuse at once what cannot fit). */
export const pluginJarQuery = z.object({
  fileName: jarFileName,
  size: z.coerce
    .number()
    .int()
    .min(1, 'The plugin file is empty.')
    .max(PLUGIN_JAR_MAX_BYTES, `A plugin file is at most ${PLUGIN_JAR_MAX_BYTES / 1024 / 1024} MiB.`)
    .optional(),
});

/** A file of the owner's own in `plugins/`: a plain name, never a path. */
export const uploadedPluginName = z
  .string()
  .min(UPLOADED_PLUGIN_NAME.min)
  .max(UPLOADED_PLUGIN_NAME.max)
  .regex(UPLOADED_PLUGIN_NAME.pattern, UPLOADED_PLUGIN_NAME.message);

export const installedPlugin = z.object({
  /** The catalogue id of a first-party plugin, or the file name of an uploaded one. */
  id: z.string().min(1).max(64),
  source: pluginSource,
  name: z.string().min(1).max(100),
  version: z.string().max(40),
  enabled: z.boolean(),
  /**
   * The plugin's file in `folder`: an uploaded `.js`, or a catalogue's `.jar` (named `….jar.disabled` on
   * disk while turned off, so Java does not load it).
   */
  file: z.union([uploadedPluginName, jarFileName]).nullable(),
  folder: pluginFolder.default('plugins'),
  /** The file's SHA-256 (uploads, Hangar) or SHA-512 (Modrinth), as published and checked. */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  sha512: z
    .string()
    .regex(/^[0-9a-f]{128}$/)
    .nullable()
    .default(null),
  /** Catalogue plugins: the project and the exact version installed, so updates and removals are exact. */
  projectId: z.string().max(100).nullable().default(null),
  versionId: z.string().max(100).nullable().default(null),
  settings: z.record(z.string(), z.unknown()),
  installedAt: z.string(),
});
export type InstalledPlugin = z.infer<typeof installedPlugin>;

export const pluginRecord = z.object({
  plugins: z.array(installedPlugin).max(PLUGINS_MAX),
  /** When the record last changed: a running server started before it needs a restart to apply it. */
  changedAt: z.string(),
});
export type PluginRecord = z.infer<typeof pluginRecord>;

/** What the agent answers for a server's plugins. */
export const agentPluginsResult = z.object({
  plugins: z.array(installedPlugin),
  /** The game runs with other plugins than the record says: a restart applies the change. */
  restartNeeded: z.boolean(),
  /** Whether this node runs the owner's own plugin code (only inside the cage). */
  uploadsAllowed: z.boolean(),
});
export type AgentPluginsResult = z.infer<typeof agentPluginsResult>;

const pluginId = z.string().min(1).max(64);
export const pluginChangeRequest = z.discriminatedUnion('action', [
  z.object({ action: z.literal('install'), id: pluginId }),
  z.object({ action: z.literal('enable'), id: pluginId }),
  z.object({ action: z.literal('disable'), id: pluginId }),
  z.object({ action: z.literal('remove'), id: pluginId }),
  z.object({ action: z.literal('settings'), id: pluginId, settings: z.record(z.string(), z.unknown()) }),
  /** A Java plugin or mod from a catalogue: its newest version for the server's software and Minecraft version. */
  z.object({
    action: z.literal('install-project'),
    source: z.enum(javaPluginSources),
    projectId: z.string().min(1).max(100),
    /** One of the project's versions for the server (pluginVersions); the newest when absent. */
    versionId: z.string().min(1).max(100).optional(),
  }),
  /** An installed catalogue plugin to its newest compatible version, or to the version named. */
  z.object({ action: z.literal('update'), id: pluginId, versionId: z.string().min(1).max(100).optional() }),
]);
export type PluginChangeRequest = z.infer<typeof pluginChangeRequest>;

/** What the node is asked to fetch and install: the API resolved the version; the node checks every byte. */
export const pluginFileInstall = z.object({
  source: z.enum(javaPluginSources),
  projectId: z.string().min(1).max(100),
  versionId: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
  version: z.string().max(40),
  url: z.url({ protocol: /^https?$/ }),
  fileName: jarFileName,
  folder: pluginFolder,
  size: z.number().int().min(1).max(PLUGIN_JAR_MAX_BYTES).nullable(),
  sha512: z
    .string()
    .regex(/^[0-9a-f]{128}$/)
    .nullable(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
});
export type PluginFileInstall = z.infer<typeof pluginFileInstall>;
/** Agent: one change of the record. Catalogue files arrive as `install-file`, resolved by the API. */
export const agentPluginChangeRequest = z.union([
  pluginChangeRequest,
  z.object({ action: z.literal('install-file'), file: pluginFileInstall }),
]);
export type AgentPluginChangeRequest = z.infer<typeof agentPluginChangeRequest>;

/**
 * Where catalogue icons may come from: the page's Content-Security-Policy allows images from these hosts
 * only, and the API passes on no other icon address.
 */
export const CATALOGUE_ICON_ORIGINS = ['https://cdn.modrinth.com', 'https://hangarcdn.papermc.io'] as const;

/** A project of a Java catalogue, as the page lists it. */
export const javaCatalogueEntry = z.object({
  source: z.enum(javaPluginSources),
  projectId: z.string(),
  name: z.string(),
  summary: z.string(),
  author: z.string(),
  /** An https address of the project's icon, or null. */
  icon: z.string().nullable(),
  downloads: z.number().int(),
  /** The Minecraft versions the catalogue lists for the project (as it writes them, newest last when it says). */
  gameVersions: z.array(z.string()),
  installed: z.boolean(),
});
export type JavaCatalogueEntry = z.infer<typeof javaCatalogueEntry>;
export const JAVA_CATALOGUE_PAGE = 20;
export const javaCatalogueQuery = z.object({
  source: z.enum(javaPluginSources).default('modrinth'),
  q: z.string().trim().max(100).optional(),
  page: z.coerce.number().int().min(1).max(500).default(1),
});
export const javaCatalogueResult = z.object({
  entries: z.array(javaCatalogueEntry),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** `plugins` or `mods`: what the server's software loads. */
  kind: z.enum(['plugins', 'mods']),
});
export type JavaCatalogueResult = z.infer<typeof javaCatalogueResult>;

/** One version of a catalogue project that the server can run, for choosing one. */
export const javaPluginVersion = z.object({
  versionId: z.string(),
  version: z.string(),
  fileName: z.string(),
  size: z.number().int().nullable(),
  channel: z.enum(['release', 'beta', 'alpha']),
  published: z.string().nullable(),
});
export type JavaPluginVersion = z.infer<typeof javaPluginVersion>;
export const javaPluginVersionsQuery = z.object({
  source: z.enum(javaPluginSources),
  projectId: z.string().min(1).max(100),
});
export const javaPluginVersionsResult = z.object({
  /** Newest first; only versions with a published hash. */
  versions: z.array(javaPluginVersion),
  /** The version installed now, when the project is installed. */
  installedVersionId: z.string().nullable(),
});
export type JavaPluginVersionsResult = z.infer<typeof javaPluginVersionsResult>;

export const pluginUploadRequest = z.object({
  fileName: uploadedPluginName,
  /** The file, base64. */
  content: z
    .string()
    .max(Math.ceil((PLUGIN_UPLOAD_MAX_BYTES * 4) / 3) + 4, `A plugin file is at most ${PLUGIN_UPLOAD_MAX_BYTES / 1024} KiB.`),
});
export type PluginUploadRequest = z.infer<typeof pluginUploadRequest>;

/** A catalogue entry as the page shows it, with whether the server has it. */
export const catalogueEntry = z.object({
  id: z.string(),
  name: z.string(),
  summary: z.string(),
  version: z.string(),
  commands: z.array(z.object({ usage: z.string(), info: z.string() })),
  /** Works with the server's software and version. */
  compatible: z.boolean(),
  installed: z.boolean(),
});

export const serverPluginsResult = agentPluginsResult.extend({
  /** Installed catalogue plugins with a newer compatible version, by id: that version's number. */
  updates: z.record(z.string(), z.string()),
  /** The Java catalogues this server's software can use (none for the built-in runtime and Vanilla). */
  javaSources: z.array(z.enum(javaPluginSources)),
  /** The first-party catalogue, filtered by `q` when given. */
  catalogue: z.array(catalogueEntry),
  /** Whether the server's software runs the first-party plugins (the built-in runtime does). */
  catalogueAvailable: z.boolean(),
});
export type ServerPluginsResult = z.infer<typeof serverPluginsResult>;
export const pluginsQuery = z.object({ q: z.string().max(100).optional() });
