import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { agentServerSpec, type AgentServerSpec } from '@spawnpoint/contracts';
import { parsedJson } from '../files/json-text.ts';
import type { ManagedServer } from './managed-server.ts';

/**
 * The servers still running from before an agent restart, found by the spec each left in its run folder. One
 * that cannot be adopted (its files damaged by its own game) must not keep the node down: it is left as it
 * is, and said in `failures` (logged once the log exists).
 */
export async function adoptLeftServers(runDir: string, newServer: (spec: AgentServerSpec) => ManagedServer) {
  const servers = new Map<string, ManagedServer>();
  const failures: { err: unknown; serverId: string }[] = [];
  for (const entry of await readdir(runDir, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const text = await readFile(path.join(runDir, entry.name, 'spec.json'), 'utf8').catch(() => 'null');
    const spec = agentServerSpec.safeParse(parsedJson(text));
    if (!spec.success || spec.data.serverId !== entry.name) continue;
    const server = newServer(spec.data);
    const adopted = await server.adopt().catch((err: unknown) => {
      failures.push({ err, serverId: spec.data.serverId });
      return false;
    });
    if (adopted) servers.set(spec.data.serverId, server);
  }
  return { servers, failures };
}
