import { AGENT_NAMESPACE, dialInTurn, STOPPED_BECAUSE_MAX, type AgentToApiEvents, type ApiToAgentEvents } from '@spawnpoint/contracts';
import { io, type Socket } from 'socket.io-client';
import { ConsoleOutbox } from '../server/console-outbox.ts';
import type { ServerEvents } from '../server/managed-server.ts';

export type ApiSocket = Socket<ApiToAgentEvents, AgentToApiEvents>;

const CONSOLE_FLUSH_MS = 16;
// A batch not acknowledged by then is sent again (the socket dropped in between).
const CONSOLE_ACK_TIMEOUT_MS = 10_000;
// How soon a node refused by an API process that does not hold the game plane tries the next address.
const API_RETRY_MS = 1_000;

/** What the link to the API needs: where the API processes are, and who this node is. */
export interface ApiLinkSettings {
  apiUrls: string[];
  nodeId: string;
  token: string;
}

/**
 * The node's one socket to the API (not connected yet: `socket.connect()` once the servers an earlier agent
 * left running are adopted, so the hello lists them), and the events its servers send through it: states and
 * stats as they come, console lines batched and kept until acknowledged.
 */
export function apiLink(settings: ApiLinkSettings) {
  const socket: ApiSocket = io(`${settings.apiUrls[0]}${AGENT_NAMESPACE}`, {
    auth: { nodeId: settings.nodeId, token: settings.token },
    reconnectionDelay: 500,
    // At most 2 s between tries: after a takeover the node's calls wait for it to connect (a handful of nodes
    // trying every 2 s costs a holder nothing).
    reconnectionDelayMax: 2000,
    transports: ['websocket'],
    // Its own connection: dialInTurn moves it between API processes.
    forceNew: true,
    autoConnect: false,
  });
  // Only the API process holding the game plane takes the node; the others refuse it and the next is tried.
  const dialing = dialInTurn(socket, settings.apiUrls, API_RETRY_MS);

  const outbox = new ConsoleOutbox(
    (serverId, lines) =>
      new Promise<boolean>((resolve) => {
        socket.timeout(CONSOLE_ACK_TIMEOUT_MS).emit('agent:console', { serverId, lines }, (err: Error | null) => resolve(!err));
      }),
    () => socket.connected,
  );
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = () => {
    flushTimer = null;
    outbox.flush();
  };
  // What waited while the API was away goes out once it is back.
  socket.on('connect', () => outbox.flush());

  const events: ServerEvents = {
    state: (serverId, state, reason) =>
      socket.connected &&
      socket.emit('agent:state', { serverId, state, ...(reason ? { reason: reason.slice(0, STOPPED_BECAUSE_MAX) } : {}) }),
    lines: (serverId, lines) => {
      outbox.add(serverId, lines);
      flushTimer ??= setTimeout(flush, CONSOLE_FLUSH_MS);
    },
    stats: (serverId, stats) => socket.connected && socket.emit('agent:stats', { serverId, ...stats }),
  };

  return {
    socket,
    events,
    /** Sends the console lines still waiting, and stops dialling: the agent is closing. */
    close() {
      flush();
      dialing.stop();
      socket.close();
    },
  };
}
