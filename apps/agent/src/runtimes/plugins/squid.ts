/**
 * The parts of flying-squid's objects the first-party plugins use (it ships no types). Plugins run inside
 * the game process, bundled into the launcher; they never run in the agent.
 */
export interface Vec3Like {
  x: number;
  y: number;
  z: number;
  clone(): Vec3Like;
  set(x: number, y: number, z: number): Vec3Like;
}

export interface PluginPlayer {
  username: string;
  uuid: string;
  op: boolean;
  position: Vec3Like;
  spawnPoint: Vec3Like;
  world: unknown;
  inventory: {
    slots: ({ type: number; count: number; slot: number } | null)[];
    firstEmptyInventorySlot(): number | null;
    updateSlot(slot: number, item: unknown): void;
  };
  chat(message: string): void;
  _client: { write(name: string, params: unknown): void };
  teleport(position: Vec3Like): Promise<void>;
  on(event: string, fn: (...args: never[]) => void): void;
}

export interface CommandContext {
  player?: PluginPlayer;
}

export interface PluginServer {
  players: PluginPlayer[];
  registry: { itemsByName: Record<string, { id: number; stackSize: number } | undefined> };
  overworld: unknown;
  commands: {
    add(command: {
      base: string;
      aliases?: string[];
      info: string;
      usage: string;
      op?: boolean;
      onlyPlayer?: boolean;
      action: (params: string, ctx: CommandContext) => unknown;
    }): void;
  };
  broadcast(message: string): void;
  supportFeature(name: string): boolean;
  getSpawnPoint(world: unknown): Promise<Vec3Like>;
  info(message: string): void;
  on(event: string, fn: (...args: never[]) => void): void;
}

/** flying-squid's plugin shape: called once for the server, once for each player who connects. */
export interface SquidPlugin {
  server?: (serv: PluginServer) => void;
  player?: (player: PluginPlayer, serv: PluginServer) => void;
}
