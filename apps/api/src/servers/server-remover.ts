import type { AppContext } from '../context.ts';

/** The game services removing a server's files uses. */
export type RemoverServices = 'mover' | 'power' | 'hub' | 'proxies';

/**
 * Removes deleted servers from everything that runs them: their files first (on their node or in shared
 * storage; a server whose files cannot be removed stays rather than leaking them), then, once the caller
 * deleted their rows, the start line, the live state and the join proxies' table (a player joining by the
 * name is told no server has it, not "join to start it").
 */
export class ServerRemover {
  constructor(private readonly game: Pick<AppContext['game'], RemoverServices>) {}

  /** Removes the servers' files; `whose` names them in a refusal ("this server", "one of your servers"). */
  async removeFiles(serverIds: string[], whose: 'this server' | 'one of your servers'): Promise<void> {
    for (const id of serverIds) await this.game.mover.removeFiles(id, whose);
  }

  /** Their rows are deleted: nothing keeps them any more. */
  forget(serverIds: string[]): void {
    for (const id of serverIds) {
      this.game.power.forget(id);
      this.game.hub.forget(id);
      this.game.proxies.remove(id);
    }
  }
}
