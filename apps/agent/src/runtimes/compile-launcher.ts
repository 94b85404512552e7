import { randomBytes } from 'node:crypto';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { agentRoot } from '../install-root.ts';

/**
 * The built-in runtime's launcher as plain JavaScript, run by absolute path. A TypeScript loader (tsx)
 * would read tsconfig.json, package.json and more from the game's working directory — the tenant's
 * folder — and so let a tenant choose which code the node runs. Compiled once per agent start into the
 * agent's own install (apps/agent/dist), where packages resolve from the agent's node_modules.
 */
const source = path.join(agentRoot, 'src', 'runtimes', 'flying-squid-launcher.ts');
const target = path.join(agentRoot, 'dist', 'flying-squid-launcher.mjs');
// Our own contracts package is TypeScript: bundled in, with zod's small build (`zod/mini`, the settings'
// schema). The launcher imports only contracts modules without zod (motd-text, plugin-text, players…):
// with the contracts' schemas the file was ≈ 636 KB and loading it ≈ 20 ms of every start and wake
// (compile-launcher.test.ts keeps it small). The game's own packages stay outside and resolve from the
// node's node_modules at run time: flying-squid is loaded by require, and a second copy of a package it
// shares objects with (vec3, prismarine-*) would break its `instanceof` checks.
const GAME_PACKAGES = ['flying-squid', 'minecraft-protocol', 'minecraft-data', 'vec3', 'prismarine-*'];
const contracts = path.join(agentRoot, '..', '..', 'packages', 'contracts', 'src', 'index.ts');

let compiled: Promise<string> | null = null;

export function compiledLauncher(): Promise<string> {
  compiled ??= (async () => {
    await mkdir(path.dirname(target), { recursive: true });
    // Several agents (tests) may compile at once: each writes its own file and renames it into place.
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await build({
      entryPoints: [source],
      outfile: temp,
      bundle: true,
      external: GAME_PACKAGES,
      alias: { '@spawnpoint/contracts': contracts },
      minifyWhitespace: true,
      minifySyntax: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
    });
    await rename(temp, target);
    return target;
  })();
  compiled.catch(() => (compiled = null));
  return compiled;
}
