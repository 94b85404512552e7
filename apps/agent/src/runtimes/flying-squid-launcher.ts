/**
 * Runs one flying-squid server in this process, never through its CLI. The agent compiles this file to
 * JavaScript and runs it by absolute path (runtimes/compile-launcher.ts), with the server folder as working
 * directory and a clean environment: no loader reads configuration from the tenant's folder, and the only
 * input is SPAWNPOINT_SETTINGS, which the agent made from server.properties through the sandbox. The agent
 * reads stdout/stderr (a log file) as the console, writes console commands to stdin (a FIFO), sees the
 * ready line below, and learns the players from a status ping. Adds what flying-squid lacks: a graceful
 * stop that saves the world and every player (also on SIGTERM), `save-all`, `list`, a max-players
 * limit, and the player lists and rules of flying-squid-players.ts (operators, whitelist, bans, kick,
 * pvp). It does not depend on the agent: an agent restart leaves it running.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { motdComponent } from '@spawnpoint/contracts';
import { installPlayerRules } from './flying-squid-players.ts';
import { launcherSettingsSchema } from './launcher-settings.ts';
import { builtinPluginCode } from './plugins/index.ts';
import { tell } from './plugins/chat.ts';
import type { PluginPlayer, PluginServer, SquidPlugin } from './plugins/squid.ts';
import { sayWrongVersion } from './version-refusal.ts';

interface SquidPlayer {
  username: string;
  uuid: string;
  _client: { username: string; uuid: string; end(reason: string): void };
  save(): Promise<void>;
  kick(reason: string): void;
  on(event: string, fn: (...args: never[]) => void): void;
  chat(message: unknown): void;
  system(message: unknown): void;
}
interface SquidServer {
  supportFeature(feature: string): boolean;
  players: SquidPlayer[];
  overworld: { saveNow(): Promise<void> };
  _server: {
    on(event: string, fn: (client: LoginClient) => void): void;
    listeners(event: string): ((...a: unknown[]) => void)[];
    removeAllListeners(event: string): void;
    playerCount: number;
    close(): void;
  };
  commands: { add(command: { base: string; info: string; usage: string; op?: boolean; action: (params: string) => unknown }): void };
  info(message: string): void;
  on(event: string, fn: (...args: never[]) => void): void;
  /** flying-squid's external plugins: runs the plugin's `server` at once and its `player` for each player. */
  addPlugin(name: string, plugin: SquidPlugin, settings: unknown): void;
}
interface LoginClient {
  username: string;
  uuid: string;
  end(reason: string): void;
  write(name: string, params: Record<string, unknown>): void;
  emit(event: string | symbol, ...args: unknown[]): boolean;
  /** Set when the login was refused before the game saw the player. */
  spawnpointRefused?: boolean;
}

// Resolved from this file's own location (the node's install), never from the working directory.
const require = createRequire(import.meta.url);
const { createMCServer } = require('flying-squid') as { createMCServer(options: Record<string, unknown>): SquidServer };

// Refuses to run on settings the agent did not make (the process then exits with the reason in the console).
const settings = launcherSettingsSchema.parse(JSON.parse(process.env.SPAWNPOINT_SETTINGS ?? '{}') as unknown);
const maxPlayers = settings.maxPlayers;
const motd = motdComponent(settings.motd);

const options = {
  port: settings.port,
  host: settings.host,
  version: settings.version,
  motd: settings.motd,
  'max-players': maxPlayers,
  'online-mode': settings.onlineMode,
  logging: true,
  gameMode: settings.gameMode,
  difficulty: settings.difficulty,
  worldFolder: settings.worldFolder,
  generation: {
    name: settings.flat ? 'superflat' : 'diamond_square',
    options: { worldHeight: 80, ...(settings.seed !== null ? { seed: settings.seed } : {}) },
  },
  kickTimeout: 10_000,
  plugins: {},
  modpe: false,
  'view-distance': settings.viewDistance,
  'player-list-text': { header: motd, footer: { text: 'Hosted on Spawnpoint' } },
  'everybody-op': false,
  'max-entities': 100,
  // The server list's entry: the MOTD as a chat component (colours, formats and hex colours the client
  // draws itself) and server-icon.png, which the agent read and checked.
  beforePing: (response: { players?: { sample?: { name: string; id: string }[] }; description?: unknown; favicon?: string }) => {
    response.description = motd;
    if (settings.favicon !== null) response.favicon = settings.favicon;
    if (response.players) response.players.sample = serv.players.slice(0, 12).map((p) => ({ name: p.username, id: p.uuid }));
    return response;
  },
  // Called by minecraft-protocol once the player's name and UUID are known, before the login succeeds:
  // a refusal here reaches the player as the disconnect screen's words.
  beforeLogin: (client: LoginClient) => {
    // Checked first: the refusals below write the name to the console.
    if (!validPlayerName(client.username)) {
      client.spawnpointRefused = true;
      client.end('Invalid characters in username');
      return;
    }
    const reason = refusal?.(client) ?? null;
    if (reason === null) return;
    client.spawnpointRefused = true;
    serv.info(`${client.username} was refused: ${reason.replace(/\n/g, ' ')}`);
    client.end(reason);
  },
};

let refusal: ((client: LoginClient) => string | null) | null = null;
const serv = createMCServer(options);
// A player of another Minecraft version is told which one to choose (minecraft-protocol's own server object).
sayWrongVersion(serv._server as unknown as Parameters<typeof sayWrongVersion>[0]);
refusal = installPlayerRules(serv, { whitelistEnabled: settings.whiteList, pvp: settings.pvp });

// Plugins: the first-party ones (code of the node's install, settings checked by the agent), then the
// owner's own files from plugins/, which the agent passes only when this process runs in the cage. An
// owner's plugin that fails to load is said in the console; the game runs on without it.
for (const plugin of settings.plugins) {
  const make = builtinPluginCode[plugin.id];
  if (!make) continue;
  serv.addPlugin(plugin.id, make(plugin.settings as never), plugin.settings);
  serv.info(`Plugin ${plugin.id} loaded.`);
}
const pluginsLoaded = (async () => {
  for (const file of settings.uploadedPlugins) {
    try {
      const loaded = (await import(pathToFileURL(path.resolve('plugins', file)).href)) as SquidPlugin & { default?: SquidPlugin };
      const plugin = loaded.default && typeof loaded.default === 'object' ? loaded.default : loaded;
      if (typeof plugin.server !== 'function' && typeof plugin.player !== 'function')
        throw new Error('it exports neither a server nor a player function');
      serv.addPlugin(file, { server: plugin.server, player: plugin.player }, {});
      serv.info(`Your plugin ${file} loaded.`);
    } catch (err) {
      serv.info(`Your plugin ${file} could not be loaded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
})();

// Players' words reach the owner's console, where control characters would colour it or make a line look
// like the server's own. The game itself refuses them (a name of printable ASCII without spaces, at most 16
// characters; chat without control characters or §); flying-squid does not, so it is done here.
function validPlayerName(name: string): boolean {
  return /^[\x21-\x7e]{1,16}$/.test(name);
}
const CHAT_PACKETS = new Set(['chat', 'chat_message', 'chat_command', 'chat_command_signed']);
const ILLEGAL_IN_CHAT = /[\p{Cc}§]/u;
function illegalChat(event: string, data: unknown): boolean {
  if (!CHAT_PACKETS.has(event) || !data || typeof data !== 'object') return false;
  const { message, command } = data as { message?: unknown; command?: unknown };
  const text = typeof message === 'string' ? message : typeof command === 'string' ? command : '';
  return ILLEGAL_IN_CHAT.test(text);
}

// flying-squid does not enforce max-players: refuse the login before its own handlers run.
const loginHandlers = serv._server.listeners('login');
serv._server.removeAllListeners('login');
serv._server.on('login', (client) => {
  if (client.spawnpointRefused) return;
  // From 1.21.2 the game's entity_teleport also carries a velocity and relative flags, which flying-squid
  // leaves out: the packet then fails to encode and the connection of every player who sees someone
  // teleport stops receiving anything. The missing fields are added (no motion, absolute position); older
  // versions' packets ignore them.
  const write = client.write.bind(client);
  client.write = (name, params) =>
    write(name, name === 'entity_teleport' ? { dx: 0, dy: 0, dz: 0, flags: { _value: 0 }, ...params } : withGameMode(name, params));
  if (serv._server.playerCount > maxPlayers) {
    client.end('The server is full.');
    return;
  }
  // Before flying-squid's own listeners see a chat packet (they broadcast it and write it to the console).
  const emit = client.emit.bind(client);
  client.emit = (event: string | symbol, ...args: unknown[]) => {
    if (typeof event === 'string' && illegalChat(event, args[0])) {
      client.end('Illegal characters in chat');
      return false;
    }
    return emit(event, ...args);
  };
  for (const handler of loginHandlers) handler(client);
});

const GAME_MODE_NAMES = ['survival', 'creative', 'adventure', 'spectator'] as const;
/**
 * From 1.20.2 the login and respawn packets carry the player's game mode inside `worldState`; flying-squid
 * sets `gameMode` beside it, which the encoder ignores, so every player saw survival whatever the server's
 * `gamemode` (and flew, broke and built as in survival). The mode goes where the packet reads it.
 */
function withGameMode(name: string, params: Record<string, unknown>): Record<string, unknown> {
  if (name !== 'login' && name !== 'respawn') return params;
  const worldState = params.worldState as Record<string, unknown> | undefined;
  const mode = GAME_MODE_NAMES[params.gameMode as number];
  if (!worldState || typeof worldState !== 'object' || !mode) return params;
  return { ...params, worldState: { ...worldState, gamemode: mode } };
}

async function saveAll(): Promise<void> {
  await Promise.all(serv.players.map((p) => p.save().catch(() => undefined)));
  await serv.overworld.saveNow();
}

let stopping = false;
async function gracefulStop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  serv.info('Stopping the server: saving players and the world…');
  await saveAll().catch((err: unknown) => serv.info(`Saving failed: ${String(err)}`));
  for (const player of [...serv.players]) player.kick('The server is stopping.');
  serv.info('Saved. Goodbye.');
  process.exit(0);
}

serv.commands.add({ base: 'stop', info: 'Save everything and stop the server', usage: '/stop', op: true, action: () => gracefulStop() });
serv.commands.add({
  base: 'save-all',
  info: 'Save the world and every player now',
  usage: '/save-all',
  op: true,
  action: async () => {
    await saveAll();
    return 'Saved the game';
  },
});
serv.commands.add({
  base: 'list',
  info: 'List the players online',
  usage: '/list',
  action: () => {
    const names = serv.players.map((p) => p.username);
    return `There are ${names.length} of a max of ${maxPlayers} players online: ${names.join(', ')}`;
  },
});

// Who is in the game, in Java's words: the agent counts players from these lines (player-count.ts), and an
// idle server goes to sleep by that count.
// flying-squid finishes a login even when the client left half-way (its 'connected' can come after
// 'disconnected'): such a player never joined, or the count would keep a ghost and the server never sleep.
serv.on('newPlayer' as string, (player: SquidPlayer) => {
  // From 1.20.3 chat is NBT and flying-squid sends its lines as plain text there, so its own `&` codes
  // ("&eSteve joined the game.") showed literally: every text line goes through the plugins' NBT builder.
  if (serv.supportFeature('chatPacketsUseNbtComponents')) {
    const pluginServer = serv as unknown as PluginServer;
    const pluginPlayer = player as unknown as PluginPlayer;
    const original = { chat: player.chat.bind(player), system: player.system.bind(player) };
    player.chat = (message) => (typeof message === 'string' ? tell(pluginServer, pluginPlayer, message) : original.chat(message));
    player.system = (message) => (typeof message === 'string' ? tell(pluginServer, pluginPlayer, message) : original.system(message));
  }
  let joined = false;
  let left = false;
  player.on('connected', () => {
    if (left) return;
    joined = true;
    serv.info(`${player._client.username} joined the game`);
  });
  player.on('disconnected', () => {
    left = true;
    if (joined) serv.info(`${player._client.username} left the game`);
  });
});

// The agent's ready signal (flyingSquidRuntime.readyPattern).
serv.on('ready' as string, () => void pluginsLoaded.then(() => serv.info('Done! The server is ready for players.')));

process.on('SIGTERM', () => void gracefulStop());
process.on('SIGINT', () => void gracefulStop());
