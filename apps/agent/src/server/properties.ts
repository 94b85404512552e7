/**
 * server.properties: `key=value` lines, `#` comments, values in Java's escaping (`\u00A7` for `§`, `\n`
 * for a line break, `\\` for a backslash). Reading keeps unknown keys and undoes the escapes; writing
 * keeps comments, order and unknown keys, changing only the values given (escaped with `propertyValue`).
 */
export type Properties = Map<string, string>;

export function parseProperties(text: string): Properties {
  const map: Properties = new Map();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('!')) continue;
    const eq = line.indexOf('=');
    if (eq === -1) continue;
    map.set(line.slice(0, eq).trim(), unescapeValue(line.slice(eq + 1).trim()));
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

/**
 * Escapes a value as Java's `Properties.store` does, so Java servers read back exactly this text and it
 * stays on one line: a backslash, tab, line break and form feed get their backslash escapes, and every
 * character outside printable ASCII (the `§` of formatting codes among them) becomes `\uXXXX`.
 */
export function propertyValue(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\f') out += '\\f';
    else if (code >= 0x20 && code <= 0x7e) out += ch;
    // UTF-16 code units, as Java's chars (a character beyond the BMP becomes its surrogate pair).
    else for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`;
  }
  // A leading space would be dropped by the reader.
  return out.startsWith(' ') ? `\\${out}` : out;
}

/** Java's `Properties.load` escapes: `\uXXXX`, `\t \n \r \f`, and a backslash before anything else stands for that character. */
export function unescapeValue(value: string): string {
  return value.replace(/\\(u[0-9a-fA-F]{4}|[\s\S])/g, (_m, esc: string) => {
    if (esc.length === 5) return String.fromCharCode(parseInt(esc.slice(1), 16));
    return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[esc] ?? esc;
  });
}

// Keys as Minecraft and its forks name them; a key that needs escaping in Java's grammar is none of theirs.
const PLAIN_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The file rewritten in one canonical form from what the agent reads of it, with `overrides` (plain values)
 * applied: `key=value` lines only, each key once (the last value, as both readers keep), values escaped on
 * one line. Java's `Properties` grammar also takes `key:value`, `key value` and continuation lines, which
 * the agent's reader does not; after this rewrite a Java server reads exactly the settings the agent
 * checked (its port, its player cap, its `level-name`). Lines in other forms and comments are dropped.
 */
export function canonicalProperties(text: string, overrides: Record<string, string>): string {
  const values = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('!')) continue;
    const eq = line.indexOf('=');
    if (eq === -1) continue;
    const key = line.slice(0, eq).trim();
    if (!PLAIN_KEY.test(key)) continue;
    values.set(key, unescapeValue(line.slice(eq + 1).trim()));
  }
  for (const [key, value] of Object.entries(overrides)) values.set(key, value);
  const lines = ['#Minecraft server properties (kept in one form by Spawnpoint: key=value lines)'];
  for (const [key, value] of values) lines.push(`${key}=${propertyValue(value)}`);
  return `${lines.join('\n')}\n`;
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
