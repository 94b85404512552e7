// zod's small build: the built-in runtime's launcher reads these lists at every start.
import * as z from 'zod/mini';
import '../runtimes/zod-messages.ts';

/**
 * The game's own player lists, in the formats Java servers read and write (`ops.json`, `whitelist.json`,
 * `banned-players.json`). The agent edits them through the sandbox while a server is offline; the
 * built-in runtime's launcher reads them at start and writes them back on every change. Both sides treat
 * them as hostile input: capped in size, parsed with the schemas below, a bad entry skipped and said.
 */
export const PLAYER_LIST_MAX_BYTES = 256 * 1024;
export const PLAYER_LIST_MAX_ENTRIES = 2000;

export type PlayerListKind = 'ops' | 'whitelist' | 'bans';
export const playerListFile: Record<PlayerListKind, string> = {
  ops: 'ops.json',
  whitelist: 'whitelist.json',
  bans: 'banned-players.json',
};

const uuid = z.pipe(
  z.string().check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'not a UUID')),
  z.transform((u: string) => u.toLowerCase()),
);
// Java edition names; offline-mode servers accept any 1–16 of these characters.
const name = z.string().check(z.regex(/^[A-Za-z0-9_]{1,16}$/, 'not a player name'));
const text = (max: number, fallback: string) => z._default(z.string().check(z.maxLength(max)), fallback);

export const opFileEntry = z.object({
  uuid,
  name,
  level: z._default(z.int().check(z.minimum(0), z.maximum(4)), 4),
  bypassesPlayerLimit: z._default(z.boolean(), false),
});
export const whitelistFileEntry = z.object({ uuid, name });
export const banFileEntry = z.object({
  uuid,
  name,
  created: text(64, ''),
  source: text(64, 'Server'),
  expires: text(64, 'forever'),
  reason: text(256, 'Banned by an operator.'),
});
export type OpFileEntry = z.infer<typeof opFileEntry>;
export type WhitelistFileEntry = z.infer<typeof whitelistFileEntry>;
export type BanFileEntry = z.infer<typeof banFileEntry>;

export interface PlayerLists {
  ops: OpFileEntry[];
  whitelist: WhitelistFileEntry[];
  bans: BanFileEntry[];
}

const schemas = { ops: opFileEntry, whitelist: whitelistFileEntry, bans: banFileEntry } as const;

/**
 * Parses one list file. `text` null (no file) is an empty list. Whatever cannot be used is skipped with a
 * sentence in `problems`; nothing here throws.
 */
export function parsePlayerList<K extends PlayerListKind>(kind: K, text: string | null): { entries: PlayerLists[K]; problems: string[] } {
  const file = playerListFile[kind];
  const problems: string[] = [];
  const entries: PlayerLists[K][number][] = [];
  if (text === null || text.trim() === '') return { entries: entries as PlayerLists[K], problems };
  if (Buffer.byteLength(text) > PLAYER_LIST_MAX_BYTES)
    return {
      entries: entries as PlayerLists[K],
      problems: [`${file} is larger than ${PLAYER_LIST_MAX_BYTES / 1024} KiB and was ignored.`],
    };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { entries: entries as PlayerLists[K], problems: [`${file} is not valid JSON and was ignored.`] };
  }
  if (!Array.isArray(raw)) return { entries: entries as PlayerLists[K], problems: [`${file} is not a JSON list and was ignored.`] };
  const seen = new Set<string>();
  raw.forEach((item: unknown, index) => {
    if (entries.length >= PLAYER_LIST_MAX_ENTRIES) {
      if (index === PLAYER_LIST_MAX_ENTRIES) problems.push(`${file}: entries after the first ${PLAYER_LIST_MAX_ENTRIES} were skipped.`);
      return;
    }
    const parsed = schemas[kind].safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(`${file}: entry ${index + 1} was skipped (${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'invalid'}).`);
      return;
    }
    const key = parsed.data.name.toLowerCase();
    if (seen.has(key) || seen.has(parsed.data.uuid)) return;
    seen.add(key);
    seen.add(parsed.data.uuid);
    entries.push(parsed.data as PlayerLists[K][number]);
  });
  return { entries: entries as PlayerLists[K], problems };
}

/** The file's text, as Java writes it (a JSON list, two-space indentation). */
export function serializePlayerList(entries: readonly object[]): string {
  return `${JSON.stringify(entries, null, 2)}\n`;
}

/** The `created` date of a ban in Java's format: `2025-01-31 13:45:12 +0000`. */
export function javaDate(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getUTCFullYear()}-${p(date.getUTCMonth() + 1)}-${p(date.getUTCDate())} ${p(date.getUTCHours())}:${p(date.getUTCMinutes())}:${p(date.getUTCSeconds())} +0000`;
}

/** Whether a ban still holds: `forever` (or anything that is not a date) does; a date in the past does not. */
export function banHolds(entry: BanFileEntry, now = Date.now()): boolean {
  if (entry.expires === 'forever') return true;
  const at = Date.parse(entry.expires.replace(' ', 'T').replace(' ', ''));
  return Number.isNaN(at) || at > now;
}

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Finds an entry by its player: the UUID, or the name (offline-mode identity is the name). */
export function findPlayer<T extends { uuid: string; name: string }>(
  entries: readonly T[],
  player: { uuid?: string; name: string },
): T | undefined {
  return entries.find((e) => (player.uuid !== undefined && e.uuid === player.uuid.toLowerCase()) || sameName(e.name, player.name));
}

/** The list without that player's entry. */
export function withoutPlayer<T extends { uuid: string; name: string }>(entries: readonly T[], name: string): T[] {
  return entries.filter((e) => !sameName(e.name, name));
}
