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
agent.http.log.info(
  `Spawnpoint agent ${config.AGENT_NODE_ID} up on ${config.AGENT_HOST}:${config.AGENT_PORT}, reporting to ${config.API_URL}`,
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
