import { z } from 'zod';
import { serverState } from './api.ts';
import { faviconSchema } from './motd.ts';

/**
 * When a player joining by name starts a stopped server (a per-server setting): `always` (offline or
 * asleep), `sleeping` (only a server that fell asleep by itself; one its owner stopped stays stopped) or
 * `never` (only the dashboard starts it).
 */
export const joinStartModes = ['always', 'sleeping', 'never'] as const;
export const joinStart = z.enum(joinStartModes, { error: 'Choose always, sleeping or never' });
export type JoinStart = z.infer<typeof joinStart>;
export const joinStartRequest = z.object({ joinStart });

/** Whether a login may start a server in `state` under `mode` (the proxy asks first, the API decides). */
export function joinMayStart(mode: JoinStart, state: z.infer<typeof serverState>): boolean {
  // `uploading`: on its way to sleep in shared storage, asleep once that is done.
  if (state === 'sleeping' || state === 'uploading') return mode !== 'never';
  return state === 'offline' && mode === 'always';
}

/** What a player reads when the owner's setting keeps the server stopped. */
export const joinStartRefusal = "This server doesn't start when players join. Ask its owner to start it.";

/**
 * After a join started a server and nobody then played on it, joins do not start it again for this long:
 * a stranger who knows a listed name (the name is only proven by the game's own login) or a bot must not
 * keep a server awake and spend its owner's play time. Its owner's Start is not held back.
 */
export const WAKE_COOLDOWN_MS = 15 * 60_000;
export const wakeCooldownMessage = (minutes: number) =>
  `This server was started by a join a few minutes ago and nobody stayed to play, so joining starts it again in ${minutes} minute${minutes === 1 ? '' : 's'}. Its owner can still start it.`;

/**
 * The join proxy's channel to the API (docs/design.md, The join proxy). A proxy connects to the API's
 * `/proxy` Socket.IO namespace with the proxy token (`PROXY_TOKEN`); the API pushes the whole routing table
 * on connect (`proxy:routes`) and every change after it (`proxy:route`), so a proxy never asks the database
 * anything per connection and any number of proxies can run. A login to a server that is not running asks
 * the API to start it (`proxy:wake`, acknowledged with `started` or `refused` and the message a player
 * sees).
 */
export const PROXY_NAMESPACE = '/proxy';
/** The port players use when they type no port; a join address shows `:PORT` for any other. */
export const MINECRAFT_DEFAULT_PORT = 25565;

/** One server as the proxy routes it: by its name, to its node's game port. */
export const proxyRoute = z.object({
  name: z.string().min(1).max(64),
  serverId: z.string().min(1).max(64),
  /** Where the proxy reaches the game port: the node's `publicHost`. */
  host: z.string().min(1).max(255),
  port: z.number().int().min(1).max(65535),
  state: serverState,
  /** Slots shown in the proxy's own status answer (a server that is not running). */
  maxPlayers: z.number().int().min(0).max(100_000),
  /** The Minecraft version the server runs, shown in the proxy's own status answer. */
  version: z.string().max(32),
  /**
   * The server's icon (`server-icon.png` as a PNG data URL) for the proxy's own status answer, so a sleeping
   * server keeps its picture in the player's server list; null when it has none (or none valid).
   */
  icon: faviconSchema.nullable(),
  /**
   * The server's own MOTD (as saved, `§` codes; '' for none): its first line heads the proxy's own status
   * answer, above the line that says the server sleeps and joining wakes it.
   */
  motd: z.string().max(512).default(''),
  /** Open the connection to the game with a PROXY protocol v2 header (the player's real address). */
  proxyProtocol: z.boolean().default(false),
  /** When a login starts the server (an API older than the setting: `always`, as before it). */
  joinStart: joinStart.default('always'),
});
export type ProxyRoute = z.infer<typeof proxyRoute>;

/** The whole table, sent on every (re)connect; it replaces whatever the proxy had. */
export const proxyRoutesEvent = z.object({
  playDomain: z.string().min(1).max(253),
  routes: z.array(proxyRoute),
});
export type ProxyRoutesEvent = z.infer<typeof proxyRoutesEvent>;

/** One server changed (state, port, slots) or was created (`route`), or was deleted (`route: null`). */
export const proxyRouteEvent = z.object({ name: z.string().min(1).max(64), route: proxyRoute.nullable() });
export type ProxyRouteEvent = z.infer<typeof proxyRouteEvent>;

/** A player logs in to a server that is not running: start it as its owner's Start would. */
export const proxyWakeRequest = z.object({
  serverId: z.string().min(1).max(64),
  /**
   * The joining player's name from their Login Start: the API checks it against the server's bans and
   * whitelist. Required: a wake without a name would pass those checks (a client that sends none, or
   * garbage, must not start a whitelisted server).
   */
  player: z.string().regex(/^[A-Za-z0-9_]{1,16}$/),
});
export type ProxyWakeRequest = z.infer<typeof proxyWakeRequest>;
export const proxyWakeResult = z.discriminatedUnion('result', [
  z.object({ result: z.literal('started') }),
  /** The API's refusal, in words for the player (limits, the state, an unreachable node). */
  z.object({ result: z.literal('refused'), message: z.string().max(1000) }),
]);
export type ProxyWakeResult = z.infer<typeof proxyWakeResult>;

export interface ApiToProxyEvents {
  'proxy:routes': (payload: ProxyRoutesEvent) => void;
  'proxy:route': (payload: ProxyRouteEvent) => void;
}

export interface ProxyToApiEvents {
  'proxy:wake': (payload: ProxyWakeRequest, ack: (result: ProxyWakeResult) => void) => void;
}

/** The join address players type: no port on Minecraft's default port, `:PORT` on any other. */
export function joinAddressOf(name: string, playDomain: string, proxyPort: number): string {
  return proxyPort === MINECRAFT_DEFAULT_PORT ? `${name}.${playDomain}` : `${name}.${playDomain}:${proxyPort}`;
}
