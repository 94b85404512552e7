import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { freePort } from '../../../../test-support/free-port.ts';
import { serviceArgs } from '../../../../test-support/service-command.ts';
import os from 'node:os';
import path from 'node:path';
import { mirrorsOf, startVendorStub, type VendorStub } from '../../../../test-support/vendor-stub.ts';

const root = path.resolve(import.meta.dirname, '../../../..');

export interface AgentProcess {
  nodeConfig: { id: string; url: string; token: string; publicHost: string; capacity: number; portRange: string };
  dataDir: string;
  /** Starts the real agent (a separate process, as in production) reporting to the API at `apiUrl`. */
  start(apiUrl: string): void;
  /** What the agent wrote to stdout so far (its log), most recent 2,000 lines. */
  output(): string[];
  /** Kills the agent as a crash would (SIGKILL), keeping its data so `start` brings it back. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/** The stand-in vendor every agent of a test file reads its software versions from. */
let sharedVendors: Promise<VendorStub> | undefined;

/**
 * A real agent for API tests; its game ports come from a random block so parallel suites do not collide.
 * `netns`: runs it inside that network namespace (`ip netns exec`), as a machine of its own reached at
 * `address`: it listens there, and the API knows it by that address.
 */

export async function prepareAgent(
  capacity = 50,
  env: Record<string, string> = {},
  nodeId = 'test-node',
  machine?: { netns: string; address: string },
): Promise<AgentProcess> {
  const port = await freePort();
  // The vendors' metadata as a local stand-in (this machine reaches no vendor): Java software is offered
  // in 1.21.4 and 1.20.4, as a node that reached its vendors offers them; the downloads themselves fail.
  const vendors = mirrorsOf(await (sharedVendors ??= startVendorStub()));
  const host = machine?.address ?? '127.0.0.1';
  const token = randomBytes(24).toString('hex');
  // Below the ephemeral range (32768+), so the ports of test connections never take a game port.
  const low = 26000 + Math.floor(Math.random() * 67) * 100;
  const portRange = `${low}-${low + 99}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-test-agent-'));
  let child: ChildProcess | null = null;
  // Set by crash() and stop(); an exit without it is one no test asked for.
  let ending = false;
  const lines: string[] = [];
  let partial = '';
  return {
    output: () => [...lines],
    nodeConfig: { id: nodeId, url: `http://${host}:${port}`, token, publicHost: machine ? host : 'localhost', capacity, portRange },
    dataDir,
    start(apiUrl) {
      const command = [process.execPath, ...serviceArgs('agent')];
      // `ip netns exec` enters the namespace and execs the command: the child is the agent itself.
      const [file, ...args] = machine ? ['ip', 'netns', 'exec', machine.netns, ...command] : command;
      child = spawn(file as string, args, {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          AGENT_NODE_ID: nodeId,
          AGENT_TOKEN: token,
          AGENT_PORT: String(port),
          API_URL: apiUrl,
          DATA_DIR: dataDir,
          GAME_PORT_RANGE: portRange,
          LOG_LEVEL: 'warn',
          ...vendors,
          ...(machine ? { AGENT_HOST: machine.address } : {}),
          ...env,
        },
      });
      ending = false;
      // An agent that dies on its own leaves a test waiting for a node that never comes back: say why here,
      // with its last lines (its log is otherwise only kept in memory).
      child.once('exit', (code, signal) => {
        if (ending) return;
        const last = [...lines, partial].filter(Boolean).slice(-40).join('\n');
        process.stderr.write(`agent ${nodeId} exited unasked (code ${code}, signal ${signal}); its last lines:\n${last}\n`);
      });
      // Always read, so a talkative agent never blocks on a full pipe.
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        lines.push(...parts);
        if (lines.length > 2000) lines.splice(0, lines.length - 2000);
      });
    },
    async crash() {
      ending = true;
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child?.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
    },
    async stop() {
      ending = true;
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child?.once('exit', r));
        child.kill('SIGINT'); // stops its game servers too
        await exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
