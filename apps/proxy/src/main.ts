/**
 * The join proxy (docs/design.md, The join proxy): listens on PROXY_PORT (25565 by default) for Minecraft
 * connections, routes `NAME.<PLAY_DOMAIN>` to the server's node and wakes stopped servers on login. Holds
 * no database: the API pushes the routing table over its `/proxy` namespace.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loggerOptions } from '@spawnpoint/logging';
import { pino } from 'pino';
import { connectToApi } from './api-link.ts';
import { loadProxyConfig, ProxyConfigError, proxyToken, type ProxyConfig } from './config.ts';
import { startJoinProxy, type JoinProxy } from './join-proxy.ts';
import { RouteTable } from './route-table.ts';

/** Exit code of a proxy that cannot listen: `npm start` does not start it again (nothing would change). */
export const CANNOT_LISTEN_EXIT_CODE = 78;

async function main(): Promise<void> {
  let config: ProxyConfig;
  try {
    config = loadProxyConfig();
  } catch (err) {
    if (err instanceof ProxyConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const options = loggerOptions({ level: config.LOG_LEVEL, format: config.logFormat, name: 'proxy' });
  const log = options.stream ? pino({ level: options.level }, options.stream) : pino({ level: options.level });

  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled promise rejection; still serving'));
  process.on('uncaughtException', (err, origin) => {
    log.fatal({ err, origin }, 'uncaught exception; exiting');
    process.exit(1);
  });

  const table = new RouteTable();
  let wake: Parameters<typeof startJoinProxy>[0]['wake'] = async () => ({ result: 'refused', message: 'Spawnpoint is starting up.' });
  let proxy: JoinProxy;
  try {
    proxy = await startJoinProxy(
      {
        table,
        wake: (serverId, player) => wake(serverId, player),
        log,
        holdMs: config.PROXY_HOLD_SECONDS * 1000,
        connectionsPerSecondPerAddress: config.PROXY_CONNECTIONS_PER_SECOND,
        maxConnectionsPerAddress: config.PROXY_CONNECTIONS_PER_ADDRESS,
      },
      { port: config.PROXY_PORT, host: config.PROXY_HOST },
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'another program uses it' : code === 'EACCES' ? 'this user may not use it' : String(err);
    log.error(
      { code },
      `The join proxy cannot listen on port ${config.PROXY_PORT} (${why}), so joining by name is off; direct addresses ` +
        `(shown on each server's page) still work. To use another port, start with PROXY_PORT=<port> (for example ` +
        `PROXY_PORT=25566 npm start; join addresses then end in :25566), or PROXY_PORT=0 to run without the proxy.`,
    );
    process.exit(CANNOT_LISTEN_EXIT_CODE);
  }

  // The API writes the token into DATA_DIR at its start; wait for it when it is not given.
  let token = proxyToken(config);
  if (!token) log.info({}, `waiting for the proxy token (PROXY_TOKEN or ${config.dataDir}/proxy-token)`);
  while (!token) {
    await sleep(500);
    token = proxyToken(config);
  }
  const link = connectToApi({ apiUrls: config.API_URL, token, table, log });
  wake = link.wake;
  log.info({ port: proxy.port }, `Join proxy listening on port ${proxy.port}`);

  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      link.close();
      void proxy.close().then(() => process.exit(0));
    });
  }
}

void main();
