/**
 * The words public names and texts may not contain. Without zod, so code that loads only this (the
 * built-in runtime's launcher, through the MOTD) does not load the schema library with it.
 */

// Words a public join address may not contain (after undoing common digit swaps).
const restrictedWords = [
  'admin',
  'moderator',
  'official',
  'mojang',
  'microsoft',
  'spawnpoint',
  'support',
  'staff',
  'nazi',
  'hitler',
  'porn',
  'sex',
  'fuck',
  'shit',
  'cunt',
  'nigger',
  'nigga',
  'faggot',
  'retard',
  'rape',
  'whore',
  'slut',
];
// Host names we keep for ourselves.
const reservedNames = new Set([
  'www',
  'api',
  'app',
  'mail',
  'play',
  'status',
  'help',
  'docs',
  'blog',
  'dashboard',
  'panel',
  'lobby',
  'proxy',
  'ftp',
  'sftp',
  'smtp',
  'node',
]);

function undoLeet(name: string): string {
  return name
    .replace(/0/g, 'o')
    .replace(/1/g, 'i')
    .replace(/3/g, 'e')
    .replace(/4/g, 'a')
    .replace(/5/g, 's')
    .replace(/7/g, 't')
    .replace(/-/g, '');
}

/**
 * CONTENT_RESTRICTED for one word of free text (a MOTD): the offensive words of the list, matched as
 * whole words after undoing digit swaps. The names we keep for ourselves and words like "admin" or
 * "support" are fine in a message; only a join address could pass itself off with them.
 */
export function isRestrictedWord(word: string): boolean {
  const offensive = restrictedWords.slice(restrictedWords.indexOf('nazi'));
  return offensive.includes(word) || offensive.includes(undoLeet(word));
}

/** CONTENT_RESTRICTED: true when a name may not be used as a public join address. */
export function isRestrictedName(name: string): boolean {
  if (reservedNames.has(name)) return true;
  const plain = undoLeet(name);
  return restrictedWords.some((word) => name.includes(word) || plain.includes(word));
}
