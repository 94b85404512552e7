/**
 * server.properties: `key=value` lines, `#` comments. Reading keeps unknown keys; writing keeps comments,
 * order and unknown keys, changing only the values given.
 */
export type Properties = Map<string, string>;

export function parseProperties(text: string): Properties {
  const map: Properties = new Map();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('!')) continue;
    const eq = line.indexOf('=');
    if (eq === -1) continue;
    map.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return map;
}

export function updateProperties(text: string, values: Record<string, string>): string {
  const pending = new Map(Object.entries(values));
  const lines = text.split(/\r?\n/).map((raw) => {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('!')) return raw;
    const eq = line.indexOf('=');
    if (eq === -1) return raw;
    const key = line.slice(0, eq).trim();
    if (!pending.has(key)) return raw;
    const value = pending.get(key) as string;
    pending.delete(key);
    return `${key}=${value}`;
  });
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  for (const [key, value] of pending) lines.push(`${key}=${value}`);
  return `${lines.join('\n')}\n`;
}

/** Escapes a value so it stays on one line. */
export function propertyValue(value: string): string {
  return value.replace(/[\r\n]/g, ' ');
}

export function defaultProperties(values: { motd: string; maxPlayers: number }): string {
  return updateProperties('#Minecraft server properties\n', {
    motd: propertyValue(values.motd),
    'max-players': String(values.maxPlayers),
    gamemode: 'survival',
    difficulty: 'easy',
    'level-name': 'world',
    'level-seed': '',
    'level-type': 'default',
    'online-mode': 'false',
    'view-distance': '10',
    pvp: 'true',
  });
}
