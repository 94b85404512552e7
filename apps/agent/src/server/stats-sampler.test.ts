import { PLAYER_NAME_SHOWN_MAX, PLAYERS_LISTED_MAX, serverStats } from '@spawnpoint/contracts';
import { createServer, type Server } from 'minecraft-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test-support/free-port.ts';
import { pingPlayers } from './stats-sampler.ts';

/** A game whose status ping says whatever its (hostile) owner wrote, as a plugin can make it. */
let game: Server | null = null;
async function gameAnswering(players: unknown): Promise<number> {
  const port = await freePort();
  game = createServer({
    'online-mode': false,
    host: '127.0.0.1',
    port,
    version: '1.21.4',
    beforePing: (response: Record<string, unknown>) => {
      response.players = players;
      return response;
    },
  });
  await new Promise<void>((resolve) => game?.once('listening', () => resolve()));
  return port;
}
afterEach(() => {
  game?.close();
  game = null;
});

describe("the players a game's status ping names", () => {
  it('keep what fits the stats contract, however much and whatever the game answers', async () => {
    const huge = Array.from({ length: 5000 }, (_, i) => ({ name: `${'x'.repeat(500)}${i}`, id: '0' }));
    const players = await pingPlayers(await gameAnswering({ online: 5000, max: 20, sample: huge }), 10);
    expect(players.list).toHaveLength(PLAYERS_LISTED_MAX);
    expect(players.list.every((name) => name.length === PLAYER_NAME_SHOWN_MAX)).toBe(true);
    expect(serverStats.safeParse({ cpu: 0, memory: 0, disk: 0, players }).success).toBe(true);
  });

  it('answer as an empty list and the plan’s slots when the game answers nonsense', async () => {
    const players = await pingPlayers(await gameAnswering({ online: 'many', max: -3, sample: [{ name: { no: 1 } }, null, 7] }), 10);
    expect(players).toEqual({ online: 0, max: 10, list: [] });
  });
});
