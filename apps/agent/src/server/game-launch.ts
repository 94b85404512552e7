import { mkdir } from 'node:fs/promises';
import type { AgentServerSpec } from '@spawnpoint/contracts';
import type { GameCage } from '../cage/cage.ts';
import type { Sandbox } from '../files/sandbox.ts';
import { LaunchRefused, readGameSettings, refuseLinksIn } from '../runtimes/game-settings.ts';
import type { Runtime, RuntimeProcess } from '../runtimes/types.ts';
import type { ConsoleBuffer } from './console-buffer.ts';
import { rememberSpec } from './detached-process.ts';
import { canBind } from './ports.ts';

/** What a launch of one server's game needs (ManagedServer gives its own). */
export interface Launch {
  spec: AgentServerSpec;
  dir: string;
  runDir: string;
  bindHost: string;
  runtime: Runtime;
  cage: GameCage;
  console: ConsoleBuffer;
  /** Why the launch must not go on now (the server was deleted, killed, or the agent is stopping), or null. */
  calledOff(): string | null;
}

/**
 * Prepares and launches the game in its cage. Every path the game will take from its files is checked
 * first, through the sandbox; a refusal the user can act on is a LaunchRefused saying what to do.
 */
export async function launchGame(sandbox: Sandbox, l: Launch): Promise<{ proc: RuntimeProcess; pluginsAtLaunch: string | null }> {
  const settings = await readGameSettings(sandbox, { caged: l.cage.mode === 'caged' });
  for (const notice of settings.plugins.notices) l.console.notice(notice);
  await refuseLinksIn(sandbox, l.runtime.writtenFolders(settings));
  // Said at once, instead of a start that never becomes ready (the control plane moves the server to
  // a free port before a start; this catches a program that took the port since).
  if (!(await canBind(l.spec.port, l.bindHost)))
    throw new LaunchRefused(
      `Port ${l.spec.port} is used by another program on this machine, so the server cannot listen on it. Start it again to move it to a free port.`,
    );
  const plan = await l.runtime.plan({ dir: l.dir, spec: l.spec, bindHost: l.cage.gameBindHost ?? l.bindHost, runDir: l.runDir, settings });
  // Removed, killed or the agent stopping while it was being prepared: nothing of it may run.
  const off = l.calledOff();
  if (off) throw new LaunchRefused(off);
  await mkdir(l.runDir, { recursive: true });
  await rememberSpec(l.runDir, l.spec);
  if (l.cage.warning) l.console.notice(l.cage.warning);
  const proc = await l.cage.launch(plan, {
    serverId: l.spec.serverId,
    dir: l.dir,
    runDir: l.runDir,
    memoryMb: l.spec.memoryMb,
    port: l.spec.port,
  });
  return { proc, pluginsAtLaunch: settings.plugins.changedAt };
}

/**
 * The first start of a version on this node downloads it, with progress in the console. Rejects with the
 * signal's reason as soon as it is aborted (stop, kill, removal); the download itself may go on for others.
 */
export async function waitForSoftware(runtime: Runtime, spec: AgentServerSpec, console: ConsoleBuffer, signal: AbortSignal): Promise<void> {
  if (!runtime.fetchSoftware) return;
  const cancelled = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error(String(signal.reason))), { once: true }),
  );
  await Promise.race([runtime.fetchSoftware(spec, (line) => console.notice(line)), cancelled]);
}
