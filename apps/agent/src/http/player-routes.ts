import { Readable } from 'node:stream';
import { agentEndpoints, offlineUuid, type PlayerActionRequest, type ServerPlayers } from '@spawnpoint/contracts';
import type { FastifyInstance } from 'fastify';
import { agentRouter } from './agent-route.ts';
import { InvalidStateError, type ManagedServer } from '../server/managed-server.ts';
import {
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
import { parseProperties, updateProperties } from '../server/properties.ts';
import { SandboxError, type Sandbox } from '../files/sandbox.ts';

// How long a change sent to a running game may take to show (in its files, or for a kick in the status
// ping) before the answer goes anyway.
const APPLY_WAIT_MS = 3000;

async function readList<K extends PlayerListKind>(sandbox: Sandbox, kind: K): Promise<{ entries: PlayerLists[K]; problems: string[] }> {
  let text: string | null;
  try {
    text = await sandbox.readTextIfExists(playerListFile[kind], PLAYER_LIST_MAX_BYTES);
  } catch (err) {
    return {
      entries: parsePlayerList(kind, null).entries,
      problems: [`${playerListFile[kind]} was ignored: ${err instanceof Error ? err.message : String(err)}`],
    };
  }
  return parsePlayerList(kind, text);
}

async function readLists(sandbox: Sandbox): Promise<{ lists: PlayerLists; problems: string[]; whitelistEnabled: boolean }> {
  const [ops, whitelist, bans, properties] = await Promise.all([
    readList(sandbox, 'ops'),
    readList(sandbox, 'whitelist'),
    readList(sandbox, 'bans'),
    sandbox.readTextIfExists('server.properties').catch(() => null),
  ]);
  return {
    lists: { ops: ops.entries, whitelist: whitelist.entries, bans: bans.entries },
    problems: [...ops.problems, ...whitelist.problems, ...bans.problems],
    whitelistEnabled: parseProperties(properties ?? '').get('white-list') === 'true',
  };
}

const writeText = (sandbox: Sandbox, file: string, text: string) =>
  sandbox.writeFrom(file, Readable.from([Buffer.from(text)]), { overwrite: true });

/** The command a running game gets for a change (names and reasons are checked by the schema: one line, no spaces in names). */
function commandFor(request: PlayerActionRequest): string {
  switch (request.action) {
    case 'kick':
    case 'ban':
      return `${request.action} ${request.name}${request.reason ? ` ${request.reason}` : ''}`;
    case 'op':
    case 'deop':
    case 'pardon':
      return `${request.action} ${request.name}`;
    case 'whitelist-add':
      return `whitelist add ${request.name}`;
    case 'whitelist-remove':
      return `whitelist remove ${request.name}`;
    case 'whitelist':
      return `whitelist ${request.enabled ? 'on' : 'off'}`;
  }
}

/** Whether the files show the change yet (a running game writes them once it has applied the command). */
function applied(request: PlayerActionRequest, seen: { lists: PlayerLists; whitelistEnabled: boolean }): boolean {
  const who = 'name' in request ? { name: request.name } : null;
  switch (request.action) {
    case 'kick':
      return true; // Not in the files: see the online list.
    case 'op':
      return Boolean(who && findPlayer(seen.lists.ops, who));
    case 'deop':
      return Boolean(who && !findPlayer(seen.lists.ops, who));
    case 'whitelist-add':
      return Boolean(who && findPlayer(seen.lists.whitelist, who));
    case 'whitelist-remove':
      return Boolean(who && !findPlayer(seen.lists.whitelist, who));
    case 'ban':
      return Boolean(who && findPlayer(seen.lists.bans, who));
    case 'pardon':
      return Boolean(who && !findPlayer(seen.lists.bans, who));
    case 'whitelist':
      return seen.whitelistEnabled === request.enabled;
  }
}

/** Edits the files of an offline server, as the game would. */
async function applyToFiles(sandbox: Sandbox, request: PlayerActionRequest): Promise<void> {
  if (request.action === 'kick') throw new InvalidStateError('The server is not running, so nobody is online to kick.');
  if (request.action === 'whitelist') {
    const current = (await sandbox.readTextIfExists('server.properties')) ?? '';
    await writeText(sandbox, 'server.properties', updateProperties(current, { 'white-list': String(request.enabled) }));
    return;
  }
  const { lists } = await readLists(sandbox);
  const who = { name: request.name, uuid: offlineUuid(request.name) };
  const save = (kind: PlayerListKind, entries: readonly object[]) => writeText(sandbox, playerListFile[kind], serializePlayerList(entries));
  switch (request.action) {
    case 'op':
      if (!findPlayer(lists.ops, who)) await save('ops', [...lists.ops, { ...who, level: 4, bypassesPlayerLimit: false }]);
      return;
    case 'deop':
      return void (await save('ops', withoutPlayer(lists.ops, request.name)));
    case 'whitelist-add':
      if (!findPlayer(lists.whitelist, who)) await save('whitelist', [...lists.whitelist, who]);
      return;
    case 'whitelist-remove':
      return void (await save('whitelist', withoutPlayer(lists.whitelist, request.name)));
    case 'ban':
      return void (await save('bans', [
        ...withoutPlayer(lists.bans, request.name),
        {
          ...who,
          created: javaDate(new Date()),
          source: 'Spawnpoint',
          expires: 'forever',
          reason: request.reason || 'Banned by an operator.',
        },
      ]));
    case 'pardon':
      return void (await save('bans', withoutPlayer(lists.bans, request.name)));
  }
}

/**
 * The Players page's endpoints of the agent. The lists are always read from the files (a running game
 * keeps them in step); a change goes to a running game as a console command, or into the files of an
 * offline server through the sandbox.
 */
export function playerRoutes(http: FastifyInstance, servers: Map<string, ManagedServer>): void {
  // Offline edits of one server's files, one at a time (each reads, changes and writes a whole file).
  const lines = new Map<string, Promise<unknown>>();
  const known = ({ serverId }: { serverId: string }) => {
    const server = servers.get(serverId);
    if (!server) throw new SandboxError('NOT_FOUND', 'This server is not on this node.');
    return server;
  };
  const present = async (server: ManagedServer): Promise<ServerPlayers> => {
    const { lists, problems, whitelistEnabled } = await readLists(await server.sandbox());
    return {
      running: server.state === 'online',
      online: server.onlinePlayers(),
      whitelistEnabled,
      operators: lists.ops.map(({ name, uuid, level }) => ({ name, uuid, level })),
      whitelist: lists.whitelist.map(({ name, uuid }) => ({ name, uuid })),
      bans: lists.bans.map(({ name, uuid, reason, created, source, expires }) => ({ name, uuid, reason, created, source, expires })),
      problems,
    };
  };

  const route = agentRouter(http);
  route(agentEndpoints.players, async ({ params }) => present(known(params)));

  route(agentEndpoints.playersUpdate, async ({ params, body: change }) => {
    const server = known(params);
    if (server.state === 'online') {
      server.command(commandFor(change));
      const sandbox = await server.sandbox();
      // A kick shows in the next status ping (every 2 s); the other changes in the files the game writes.
      const shows = async () =>
        change.action === 'kick'
          ? !server.onlinePlayers().some((n) => n.toLowerCase() === change.name.toLowerCase())
          : applied(change, await readLists(sandbox));
      const deadline = Date.now() + APPLY_WAIT_MS;
      while (Date.now() < deadline && !(await shows())) await new Promise((r) => setTimeout(r, 100));
    } else if (server.state === 'offline') {
      const id = server.spec.serverId;
      const run = (lines.get(id) ?? Promise.resolve()).then(async () => applyToFiles(await server.sandbox(), change));
      lines.set(
        id,
        run.catch(() => undefined),
      );
      await run;
    } else {
      throw new InvalidStateError(`The server is ${server.state.replace('_', ' ')}. Try again once it is online or offline.`);
    }
    return present(server);
  });
}
