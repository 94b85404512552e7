import { createAgent } from './agent.ts';
import { loadAgentConfig } from './config.ts';

let config;
try {
  config = loadAgentConfig();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
const agent = await createAgent(config);

// No input may end the agent (and with it every console and file request of the node): a promise that
// fails with nobody waiting is logged and the agent keeps serving. A thrown exception that reaches the top
// leaves state unknown, so it exits and `npm start` (or the service manager) starts it again; the game
// servers keep running and are adopted.
process.on('unhandledRejection', (reason) => {
  agent.http.log.error({ err: reason }, 'unhandled promise rejection (kept running)');
});
process.on('uncaughtException', (err) => {
  agent.http.log.fatal({ err }, 'uncaught exception; exiting so the supervisor restarts the agent');
  agent.close({ stopServers: false }).finally(() => process.exit(1));
});
agent.http.log.info(
  `Spawnpoint agent ${config.AGENT_NODE_ID} up on ${config.AGENT_HOST}:${config.AGENT_PORT}, reporting to ${config.API_URL.join(', ')}`,
);

// SIGTERM (a service manager restarting or upgrading the agent) leaves the game servers running for the
// next agent to adopt; SIGINT (Ctrl-C, or `npm start` shutting down) stops them gracefully first.
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    agent.close({ stopServers: signal === 'SIGINT' }).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
