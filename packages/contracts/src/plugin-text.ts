/**
 * What the built-in runtime's launcher needs of the plugins' rules: kit lines and the names of an owner's
 * own plugin files. Without zod (plugins.ts holds the schemas), so the launcher, which loads this at every
 * start, does not load the schema library with it.
 */

/** The file name of an owner's own plugin in `plugins/`: a plain name, never a path. */
export const UPLOADED_PLUGIN_NAME = {
  min: 4,
  max: 64,
  pattern: /^[A-Za-z0-9][A-Za-z0-9._-]*\.js$/,
  message: 'A plugin file is a .js file with letters, digits, dots, dashes or underscores in its name.',
} as const;

/** A kit line: `name: item count, item count`. Items are checked against the game's list when it starts. */
export interface KitDefinition {
  name: string;
  items: { item: string; count: number }[];
}
export function parseKitLine(line: string): KitDefinition | string {
  const match = /^\s*([a-z0-9_-]{1,32})\s*:\s*(.+)$/i.exec(line);
  if (!match) return `"${line}" is not "name: item count, item count".`;
  const items: KitDefinition['items'] = [];
  for (const part of match[2]!.split(',')) {
    const item = /^\s*(?:minecraft:)?([a-z0-9_]{1,64})(?:\s+(\d{1,3}))?\s*$/i.exec(part);
    if (!item) return `"${part.trim()}" in kit ${match[1]} is not "item count" (for example "bread 8").`;
    const count = item[2] === undefined ? 1 : Number(item[2]);
    if (count < 1 || count > 64) return `${item[1]} in kit ${match[1]}: a count is 1 to 64.`;
    items.push({ item: item[1]!.toLowerCase(), count });
  }
  return { name: match[1]!.toLowerCase(), items };
}
