/**
 * Runs one flying-squid server in this process, never through its CLI. The agent compiles this file to
 * JavaScript and runs it by absolute path (runtimes/compile-launcher.ts), with the server folder as working
 * directory and a clean environment: no loader reads configuration from the tenant's folder, and the only
 * input is SPAWNPOINT_SETTINGS, which the agent made from server.properties through the sandbox. The agent
 * reads stdout/stderr (a log file) as the console, writes console commands to stdin (a FIFO), sees the
 * ready line below, and learns the players from a status ping. Adds what flying-squid lacks: a graceful
 * stop that saves the world and every player (also on SIGTERM), `save-all`, `list`, and a max-players
 * limit. It does not depend on the agent: an agent restart leaves it running.
 */
import { createRequire } from 'node:module';
import { launcherSettingsSchema } from './launcher-settings.ts';

interface SquidPlayer {
  username: string;
  save(): Promise<void>;
  kick(reason: string): void;
}
interface SquidServer {
  players: SquidPlayer[];
  overworld: { saveNow(): Promise<void> };
  _server: {
    on(event: string, fn: (client: { end(reason: string): void }) => void): void;
    listeners(event: string): ((...a: unknown[]) => void)[];
    removeAllListeners(event: string): void;
    playerCount: number;
    close(): void;
  };
  commands: { add(command: { base: string; info: string; usage: string; op?: boolean; action: (params: string) => unknown }): void };
  info(message: string): void;
  on(event: string, fn: (...args: unknown[]) => void): void;
}

// Resolved from this file's own location (the node's install), never from the working directory.
const require = createRequire(import.meta.url);
const { createMCServer } = require('flying-squid') as { createMCServer(options: Record<string, unknown>): SquidServer };

// Refuses to run on settings the agent did not make (the process then exits with the reason in the console).
const settings = launcherSettingsSchema.parse(JSON.parse(process.env.SPAWNPOINT_SETTINGS ?? '{}') as unknown);
const maxPlayers = settings.maxPlayers;

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
  'player-list-text': { header: { text: settings.motd }, footer: { text: 'Hosted on Spawnpoint' } },
  'everybody-op': false,
  'max-entities': 100,
  beforePing: (response: { players?: { sample?: { name: string; id: string }[] } }) => {
    if (response.players)
      response.players.sample = serv.players
        .slice(0, 12)
        .map((p, i) => ({ name: p.username, id: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}` }));
    return response;
  },
};

const serv = createMCServer(options);

// flying-squid does not enforce max-players: refuse the login before its own handlers run.
const loginHandlers = serv._server.listeners('login');
serv._server.removeAllListeners('login');
serv._server.on('login', (client) => {
  if (serv._server.playerCount > maxPlayers) {
    client.end('The server is full.');
    return;
  }
  for (const handler of loginHandlers) handler(client);
});

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

// The agent's ready signal (flyingSquidRuntime.readyPattern).
serv.on('ready' as string, () => serv.info('Done! The server is ready for players.'));

process.on('SIGTERM', () => void gracefulStop());
process.on('SIGINT', () => void gracefulStop());
