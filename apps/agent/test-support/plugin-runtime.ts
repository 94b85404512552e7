import { flyingSquidRuntime } from '../src/runtimes/flying-squid.ts';
import type { Runtime } from '../src/runtimes/types.ts';

/**
 * The built-in runtime with a "plugin": `plugin.mjs` from the tenant's own folder, loaded into the game
 * process before the game (as a Paper plugin runs inside the server's JVM). Tests put hostile code there
 * to attack the cage from where tenant code really runs. Every server of an agent with this runtime needs
 * a plugin.mjs in its folder.
 */
export const pluginRuntime: Runtime = {
  ...flyingSquidRuntime,
  async plan(input) {
    const plan = await flyingSquidRuntime.plan(input);
    const launcher = plan.args.at(-1) as string;
    return { ...plan, args: [...plan.args.slice(0, -1), '--import', './plugin.mjs', launcher] };
  },
};
