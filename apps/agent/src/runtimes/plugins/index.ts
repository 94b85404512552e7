import { broadcastsPlugin } from './broadcasts.ts';
import { homesPlugin } from './homes.ts';
import { kitsPlugin } from './kits.ts';
import { spawnPlugin } from './spawn.ts';
import type { SquidPlugin } from './squid.ts';
import { tpaPlugin } from './tpa.ts';
import { welcomePlugin } from './welcome.ts';

/**
 * The first-party plugins by catalogue id (their manifests are in contracts). Their settings were checked
 * by the agent with the manifest's schema before the start, so each takes its own shape.
 */
export const builtinPluginCode: Record<string, (settings: never) => SquidPlugin> = {
  welcome: welcomePlugin,
  homes: homesPlugin,
  tpa: tpaPlugin,
  kits: kitsPlugin,
  broadcasts: broadcastsPlugin,
  spawn: spawnPlugin,
};
