import minecraftProtocol from 'minecraft-protocol';
import { eq } from 'drizzle-orm';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { servers } from './db/schema.ts';
import { buildTestAppWithAgent, ownerWithServer, requester } from './test/build-test-app.ts';
import { watchServer } from './test/server-watch.ts';

/**
 * A node comes back (its agent restarted and adopted the games it left running) and says what it runs: the
 * control plane's record decides. A game it has no record of on that node is stopped.
 */
let env: Awaited<ReturnType<typeof buildTestAppWithAgent>>;
const sockets: Socket[] = [];

beforeAll(async () => {
  env = await buildTestAppWithAgent();
});
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await env.cleanup();
});

const answers = (port: number) =>
  minecraftProtocol.ping({ host: '127.0.0.1', port, closeTimeout: 1000 }).then(
    () => true,
    () => false,
  );

describe('a node that returns', () => {
  it('shows its games offline with the reason while it is away; back, it keeps running those the control plane placed there and stops one it has no record of', async () => {
    const send = requester(env.t.app);
    const kept = await ownerWithServer(env.t, 'kept');
    const orphan = await ownerWithServer(env.t, 'orphan');
    const ports: number[] = [];
    for (const { cookie, id } of [kept, orphan]) {
      expect((await send('POST', `/v1/server/${id}/start`, cookie, {})).json().status).toBe('SUCCESS');
      await until(
        async () => (await send('GET', `/v1/server/${id}`, cookie)).json().result.state,
        (state) => state === 'online',
      );
      ports.push((await send('GET', `/v1/server/${id}`, cookie)).json().result.port as number);
    }
    const [keptPort, orphanPort] = ports as [number, number];

    // The agent dies; its games run on. Meanwhile the record of one of them goes (a database restored
    // from before it was made, say).
    await env.agent.crash();
    // Meanwhile its owner sees it offline, and the console says why.
    await until(
      async () => (await send('GET', `/v1/server/${kept.id}`, kept.cookie)).json().result.state,
      (state) => state === 'offline',
    );
    const watcher = await watchServer(send, env.base, sockets, kept.cookie, kept.id);
    await until(
      () => watcher.lines.join('\n'),
      (text) => text.includes('The machine this server runs on stopped answering, so it shows offline.'),
    );
    await env.t.ctx.database.db.delete(servers).where(eq(servers.id, orphan.id));
    env.t.ctx.game.hub.forget(orphan.id);
    expect(await answers(orphanPort)).toBe(true);

    env.agent.start(env.base);
    await until(
      () => answers(orphanPort),
      (up) => !up,
    );
    expect(await answers(keptPort)).toBe(true);
    await until(
      async () => (await send('GET', `/v1/server/${kept.id}`, kept.cookie)).json().result.state,
      (state) => state === 'online',
    );
    await send('POST', `/v1/server/${kept.id}/kill`, kept.cookie, {});
  });
});
