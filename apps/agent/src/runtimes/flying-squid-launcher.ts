/**
 * Runs one flying-squid server in this process, configured from ./server.properties (flying-squid has
 * none of its own), never through its CLI. The agent starts it detached with cwd = the server folder,
 * reads stdout/stderr (a log file) as the console, writes console commands to stdin (a FIFO), sees the
 * ready line below, and learns the players from a status ping. Adds what flying-squid lacks: a graceful
 * stop that saves the world and every player (also on SIGTERM), `save-all`, `list`, and a max-players
 * limit. It does not depend on the agent: an agent restart leaves it running.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseProperties } from '../properties.ts';

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

const require = createRequire(import.meta.url);
const { createMCServer } = require('flying-squid') as { createMCServer(options: Record<string, unknown>): SquidServer };

const props = parseProperties(readFileSync('server.properties', 'utf8'));
const num = (key: string, fallback: number) => {
  const n = Number(props.get(key));
  return Number.isFinite(n) && props.get(key) !== '' ? n : fallback;
};
const gameModes: Record<string, number> = { survival: 0, creative: 1, adventure: 2, spectator: 3 };
const difficulties: Record<string, number> = { peaceful: 0, easy: 1, normal: 2, hard: 3 };
const maxPlayers = Math.max(1, num('max-players', 10));
const seed = props.get('level-seed');

const options = {
  port: Number(process.env.SPAWNPOINT_PORT),
  host: process.env.SPAWNPOINT_HOST ?? '0.0.0.0',
  version: process.env.SPAWNPOINT_VERSION,
  motd: props.get('motd') ?? 'A Spawnpoint server',
  'max-players': maxPlayers,
  'online-mode': props.get('online-mode') === 'true',
  logging: true,
  gameMode: gameModes[props.get('gamemode') ?? ''] ?? 0,
  difficulty: difficulties[props.get('difficulty') ?? ''] ?? 1,
  worldFolder: props.get('level-name') || 'world',
  generation: {
    name: props.get('level-type') === 'flat' ? 'superflat' : 'diamond_square',
    options: { worldHeight: 80, ...(seed && /^-?\d+$/.test(seed) ? { seed: Number(seed) } : {}) },
  },
  kickTimeout: 10_000,
  plugins: {},
  modpe: false,
  'view-distance': Math.min(32, Math.max(2, num('view-distance', 10))),
  'player-list-text': { header: { text: props.get('motd') ?? 'Spawnpoint' }, footer: { text: 'Hosted on Spawnpoint' } },
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
