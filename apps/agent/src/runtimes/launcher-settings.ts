import { FAVICON_MAX_CHARS, FAVICON_PATTERN, UPLOADED_PLUGIN_NAME } from '@spawnpoint/contracts';
// zod's small build (zod-messages.ts); the rules are the contracts' own.
import * as z from 'zod/mini';
import './zod-messages.ts';

const whole = (min: number, max?: number) => z.int().check(z.minimum(min), ...(max === undefined ? [] : [z.maximum(max)]));

/**
 * What the agent hands the built-in runtime's launcher (as JSON in SPAWNPOINT_SETTINGS): everything it
 * needs, already read from the server folder through the sandbox and checked, so the launcher itself reads
 * no tenant file but the world the game keeps. The launcher parses it with this schema, so a setting the
 * agent did not check cannot reach the game.
 */
export const launcherSettingsSchema = z.object({
  port: whole(1, 65535),
  host: z.string().check(z.minLength(1)),
  version: z.string().check(z.minLength(1)),
  motd: z.string(),
  maxPlayers: whole(1),
  onlineMode: z.boolean(),
  gameMode: whole(0, 3),
  difficulty: whole(0, 3),
  /** Relative to the working directory, checked to stay inside it. */
  worldFolder: z.string().check(
    z.minLength(1),
    z.refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must stay inside the server folder'),
  ),
  flat: z.boolean(),
  seed: z.nullable(z.int()),
  viewDistance: whole(2, 32),
  /** `white-list`: only players on whitelist.json (and operators) may join. */
  whiteList: z.boolean(),
  /** `pvp`: whether players can hurt each other. */
  pvp: z.boolean(),
  /** server-icon.png as a data URL, read and checked by the agent; null: the client's default icon. */
  favicon: z.nullable(z.string().check(z.maxLength(FAVICON_MAX_CHARS), z.regex(FAVICON_PATTERN))),
  /** Enabled first-party plugins, their settings checked by the agent against the catalogue's schema. */
  plugins: z.array(z.object({ id: z.string(), settings: z.record(z.string(), z.unknown()) })),
  /** The owner's own plugin files in `plugins/`, only when the game runs in the cage. */
  uploadedPlugins: z.array(
    z
      .string()
      .check(
        z.minLength(UPLOADED_PLUGIN_NAME.min),
        z.maxLength(UPLOADED_PLUGIN_NAME.max),
        z.regex(UPLOADED_PLUGIN_NAME.pattern, UPLOADED_PLUGIN_NAME.message),
      ),
  ),
});
export type LauncherSettings = z.infer<typeof launcherSettingsSchema>;

const gameModes: Record<string, number> = { survival: 0, creative: 1, adventure: 2, spectator: 3 };
const difficulties: Record<string, number> = { peaceful: 0, easy: 1, normal: 2, hard: 3 };

/** Maps server.properties onto flying-squid's options (it has no properties file of its own). */
export function launcherSettings(
  props: Map<string, string>,
  base: Pick<LauncherSettings, 'port' | 'host' | 'version' | 'worldFolder' | 'favicon' | 'plugins' | 'uploadedPlugins'>,
  maxPlayers: number,
): LauncherSettings {
  const num = (key: string, fallback: number) => {
    const value = props.get(key);
    const n = Number(value);
    return value !== undefined && value !== '' && Number.isFinite(n) ? n : fallback;
  };
  const seed = props.get('level-seed') ?? '';
  return {
    ...base,
    motd: props.get('motd') ?? 'A Spawnpoint server',
    maxPlayers,
    onlineMode: props.get('online-mode') === 'true',
    gameMode: gameModes[props.get('gamemode') ?? ''] ?? 0,
    difficulty: difficulties[props.get('difficulty') ?? ''] ?? 1,
    flat: props.get('level-type') === 'flat',
    seed: /^-?\d{1,15}$/.test(seed) ? Number(seed) : null,
    viewDistance: Math.min(32, Math.max(2, Math.floor(num('view-distance', 10)))),
    whiteList: props.get('white-list') === 'true',
    // Java's default is on; only the exact word `false` turns it off.
    pvp: props.get('pvp') !== 'false',
  };
}
