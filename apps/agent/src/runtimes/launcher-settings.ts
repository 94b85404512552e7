/**
 * What the agent hands the built-in runtime's launcher (as JSON in SPAWNPOINT_SETTINGS): everything it
 * needs, already read from the server folder through the sandbox and checked, so the launcher itself reads
 * no tenant file but the world the game keeps.
 */
export interface LauncherSettings {
  port: number;
  host: string;
  version: string;
  motd: string;
  maxPlayers: number;
  onlineMode: boolean;
  gameMode: number;
  difficulty: number;
  /** Relative to the working directory, checked to stay inside it. */
  worldFolder: string;
  flat: boolean;
  seed: number | null;
  viewDistance: number;
}

const gameModes: Record<string, number> = { survival: 0, creative: 1, adventure: 2, spectator: 3 };
const difficulties: Record<string, number> = { peaceful: 0, easy: 1, normal: 2, hard: 3 };

/** Maps server.properties onto flying-squid's options (it has no properties file of its own). */
export function launcherSettings(
  props: Map<string, string>,
  base: { port: number; host: string; version: string; worldFolder: string },
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
  };
}
