/**
 * Part of the built-in runtime's launcher (bundled into it, runs in the game process): what flying-squid
 * lacks about players, done the way Java servers do it so one set of files serves every runtime.
 *
 * - `ops.json`, `whitelist.json` and `banned-players.json` (Java's formats) are read at start, enforced
 *   (bans and the whitelist at login, before the game sees the player; operators decide who may use
 *   operator commands) and written back whenever a command changes them.
 * - The console commands `op`, `deop`, `whitelist add|remove|on|off|list`, `ban`, `pardon`, `banlist`
 *   and `kick` replace flying-squid's own (which keep nothing and ban by whatever string they get).
 * - `whitelist on|off` also sets `white-list` in server.properties, as Java servers do.
 * - With pvp off, a player's attack on another player does nothing.
 *
 * The files are the tenant's: hostile input. Each is opened without following a link, capped in size,
 * parsed entry by entry (a bad entry is skipped with a console line) and replaced atomically; nothing
 * here may end the game process.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { offlineUuid } from '@spawnpoint/contracts';
import {
  banHolds,
  findPlayer,
  javaDate,
  parsePlayerList,
  PLAYER_LIST_MAX_BYTES,
  playerListFile,
  serializePlayerList,
  withoutPlayer,
  type PlayerListKind,
  type PlayerLists,
} from '../server/player-lists.ts';
import { updateProperties } from '../server/properties.ts';

export interface SquidClient {
  username: string;
  uuid: string;
  end(reason: string): void;
}
export interface SquidPlayerLike {
  username: string;
  uuid: string;
  type?: string;
  gameMode?: number;
  _client: SquidClient;
  kick(reason: string): void;
  on(event: string, fn: (...args: never[]) => void): void;
}
export interface SquidServerLike {
  players: SquidPlayerLike[];
  commands: {
    add(command: { base: string; info: string; usage: string; op?: boolean; action: (params: string) => unknown }): void;
  };
  info(message: string): void;
  on(event: string, fn: (...args: never[]) => void): void;
}

/** A refusal flying-squid prints as it is (its console and chat show `err.message` of a `userError`). */
class UserError extends Error {
  readonly userError = true;
}

const NAME = /^[A-Za-z0-9_]{1,16}$/;
const PROPERTIES_MAX_BYTES = 64 * 1024;

/** Reads a file of the server folder: no link followed, no FIFO waited on, at most `max` bytes. */
function readCapped(file: string, max: number): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${file} is not a file`);
    if (stat.size > max) throw new Error(`${file} is larger than ${Math.round(max / 1024)} KiB`);
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Replaces a file atomically: a new temporary file (never an existing one, never through a link), renamed over it. */
function writeAtomically(file: string, text: string): void {
  const temp = `.spawnpoint-${randomBytes(8).toString('hex')}.part`;
  try {
    writeFileSync(temp, text, { flag: 'wx', mode: 0o644 });
    renameSync(temp, file);
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {
      // Never made.
    }
    throw err;
  }
}

export interface PlayerRulesOptions {
  whitelistEnabled: boolean;
  pvp: boolean;
}

/** What the operator commands work on: the lists as loaded, and their saving. */
interface RuleBook {
  lists: PlayerLists;
  save(kind: PlayerListKind): void;
  /** Who a name is: the player online with it, or the UUID an offline-mode server gives that name. */
  identify(name: string): { name: string; uuid: string };
  online(name: string): SquidPlayerLike | undefined;
  switchWhitelist(on: boolean): void;
}

const banMessage = (reason: string) => `You are banned from this server.\nReason: ${reason}`;

/** A command's first word, and the rest (a reason). */
const split = (params: string) => {
  const [first = '', ...rest] = params.trim().split(/\s+/);
  return { first, rest: rest.join(' ') };
};

/** Installs the player lists and rules on a flying-squid server; returns the login check for `beforeLogin`. */
export function installPlayerRules(serv: SquidServerLike, options: PlayerRulesOptions) {
  const say = (line: string) => serv.info(line);
  let whitelistEnabled = options.whitelistEnabled;
  const lists: PlayerLists = { ops: [], whitelist: [], bans: [] };

  function load<K extends PlayerListKind>(kind: K): void {
    let text: string | null;
    try {
      text = readCapped(playerListFile[kind], PLAYER_LIST_MAX_BYTES);
    } catch (err) {
      say(`${err instanceof Error ? err.message : String(err)}; it was ignored.`);
      return;
    }
    const { entries, problems } = parsePlayerList(kind, text);
    for (const problem of problems) say(problem);
    lists[kind] = entries;
  }
  load('ops');
  load('whitelist');
  load('bans');
  say(
    `Players: ${lists.ops.length} operator(s), ${lists.whitelist.length} on the whitelist (${whitelistEnabled ? 'on' : 'off'}), ${lists.bans.length} banned.`,
  );

  function save(kind: PlayerListKind): void {
    try {
      writeAtomically(playerListFile[kind], serializePlayerList(lists[kind]));
    } catch (err) {
      say(`${playerListFile[kind]} could not be saved: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function saveWhitelistSwitch(): void {
    try {
      const current = readCapped('server.properties', PROPERTIES_MAX_BYTES) ?? '';
      writeAtomically('server.properties', updateProperties(current, { 'white-list': String(whitelistEnabled) }));
    } catch (err) {
      say(`server.properties could not be updated: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  const online = (name: string) => serv.players.find((p) => p.username.toLowerCase() === name.toLowerCase());
  /** Who a name is: the player online with it, or the UUID an offline-mode server gives that name. */
  const identify = (name: string) => {
    if (!NAME.test(name)) throw new UserError(`${name} is not a player name.`);
    const player = online(name);
    return player ? { name: player.username, uuid: player.uuid.toLowerCase() } : { name, uuid: offlineUuid(name) };
  };
  const isOp = (player: { uuid: string; username: string }) => Boolean(findPlayer(lists.ops, { uuid: player.uuid, name: player.username }));

  // Operators come from ops.json, live: flying-squid asks `player.op` for every operator command.
  serv.on('newPlayer', (player: SquidPlayerLike) => {
    Object.defineProperty(player, 'op', {
      get: () => isOp({ uuid: player._client.uuid, username: player._client.username }),
      set: () => undefined,
      configurable: true,
    });
    if (!options.pvp) {
      // flying-squid's attack is a cancellable behaviour; with pvp off, hitting a player does nothing.
      player.on('attack_cancel', ((data: { attackedEntity?: { type?: string } }, cancel: () => void) => {
        if (data.attackedEntity?.type === 'player') cancel();
      }) as never);
    }
  });

  const book: RuleBook = {
    lists,
    save,
    identify,
    online,
    switchWhitelist: (on) => {
      whitelistEnabled = on;
      saveWhitelistSwitch();
    },
  };
  addOperatorCommands(serv, book);
  addWhitelistCommand(serv, book);
  addBanCommands(serv, book);

  /**
   * Who may not join, and why (the words the player sees), checked before the game sees the player, as
   * Java does: bans first, then the whitelist (operators are always let in).
   */
  return function refusal(client: { username: string; uuid: string }): string | null {
    const who = { uuid: client.uuid, name: client.username };
    const ban = findPlayer(lists.bans, who);
    if (ban && banHolds(ban)) return banMessage(ban.reason);
    if (whitelistEnabled && !findPlayer(lists.whitelist, who) && !findPlayer(lists.ops, who))
      return 'You are not white-listed on this server!';
    return null;
  };
}

/** /op and /deop, kept in ops.json. */
function addOperatorCommands(serv: SquidServerLike, book: RuleBook): void {
  serv.commands.add({
    base: 'op',
    info: 'Make a player a server operator',
    usage: '/op <player>',
    op: true,
    action: (params) => {
      const who = book.identify(split(params).first);
      if (findPlayer(book.lists.ops, who)) return `Nothing changed. ${who.name} is already an operator.`;
      book.lists.ops.push({ ...who, level: 4, bypassesPlayerLimit: false });
      book.save('ops');
      return `Made ${who.name} a server operator`;
    },
  });
  serv.commands.add({
    base: 'deop',
    info: 'Make a player no longer a server operator',
    usage: '/deop <player>',
    op: true,
    action: (params) => {
      const who = book.identify(split(params).first);
      const entry = findPlayer(book.lists.ops, who);
      if (!entry) return `Nothing changed. ${who.name} is not an operator.`;
      book.lists.ops = withoutPlayer(book.lists.ops, entry.name);
      book.save('ops');
      return `Made ${entry.name} no longer a server operator`;
    },
  });
}

/** /whitelist add|remove|on|off|list, kept in whitelist.json and server.properties. */
function addWhitelistCommand(serv: SquidServerLike, book: RuleBook): void {
  serv.commands.add({
    base: 'whitelist',
    info: 'Manage the whitelist',
    usage: '/whitelist add|remove <player> | on | off | list',
    op: true,
    action: (params) => {
      const { first, rest } = split(params);
      if (first === 'on' || first === 'off') {
        book.switchWhitelist(first === 'on');
        return `Whitelist is now turned ${first}`;
      }
      if (first === 'list') {
        const names = book.lists.whitelist.map((e) => e.name);
        return names.length ? `There are ${names.length} whitelisted player(s): ${names.join(', ')}` : 'There are no whitelisted players';
      }
      if (first === 'add' || first === 'remove') {
        const who = book.identify(rest.split(/\s+/)[0] ?? '');
        const entry = findPlayer(book.lists.whitelist, who);
        if (first === 'add') {
          if (entry) return `Player ${who.name} is already whitelisted`;
          book.lists.whitelist.push(who);
          book.save('whitelist');
          return `Added ${who.name} to the whitelist`;
        }
        if (!entry) return `Player ${who.name} is not whitelisted`;
        book.lists.whitelist = withoutPlayer(book.lists.whitelist, entry.name);
        book.save('whitelist');
        return `Removed ${entry.name} from the whitelist`;
      }
      throw new UserError('Usage: /whitelist add|remove <player> | on | off | list');
    },
  });
}

/** /ban, /pardon, /banlist (banned-players.json) and /kick. */
function addBanCommands(serv: SquidServerLike, book: RuleBook): void {
  serv.commands.add({
    base: 'ban',
    info: 'Ban a player',
    usage: '/ban <player> [reason]',
    op: true,
    action: (params) => {
      const { first, rest } = split(params);
      const who = book.identify(first);
      const reason = rest || 'Banned by an operator.';
      book.lists.bans = withoutPlayer(book.lists.bans, who.name);
      book.lists.bans.push({ ...who, created: javaDate(new Date()), source: 'Server', expires: 'forever', reason });
      book.save('bans');
      book.online(who.name)?.kick(banMessage(reason));
      return `Banned ${who.name}: ${reason}`;
    },
  });
  serv.commands.add({
    base: 'pardon',
    info: 'Unban a player',
    usage: '/pardon <player>',
    op: true,
    action: (params) => {
      const who = book.identify(split(params).first);
      const entry = findPlayer(book.lists.bans, who);
      if (!entry) return `Nothing changed. ${who.name} is not banned.`;
      book.lists.bans = withoutPlayer(book.lists.bans, entry.name);
      book.save('bans');
      return `Unbanned ${entry.name}`;
    },
  });
  serv.commands.add({
    base: 'banlist',
    info: 'List the banned players',
    usage: '/banlist',
    op: true,
    action: () =>
      book.lists.bans.length
        ? `There are ${book.lists.bans.length} ban(s): ${book.lists.bans.map((b) => `${b.name} (${b.reason})`).join(', ')}`
        : 'There are no bans',
  });
  serv.commands.add({
    base: 'kick',
    info: 'Disconnect a player',
    usage: '/kick <player> [reason]',
    op: true,
    action: (params) => {
      const { first, rest } = split(params);
      const player = book.online(first);
      if (!player) throw new UserError(`${first || 'That player'} is not online.`);
      const reason = rest || 'Kicked by an operator.';
      player.kick(reason);
      return `Kicked ${player.username}: ${reason}`;
    },
  });
}
