import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const { app, close, ctx } = await buildApp({ config });
  // Another process took the game plane this one held (it could not renew its lease in time): this one must
  // not act on servers again. It exits; its service manager starts it again, as a mirror (game-plane.ts).
  ctx.gamePlane.onLost(() => process.exit(1));

  // A promise nobody awaited failed (a bug, maybe reached by user input): log it and keep serving.
  process.on('unhandledRejection', (reason) => {
    app.log.error({ err: reason }, 'unhandled promise rejection; still serving');
  });
  // An exception escaped outside any request: the process state may be corrupt, so log it and exit
  // non-zero; the supervisor (`npm start`, or the service manager) starts a clean process.
  process.on('uncaughtException', (err, origin) => {
    app.log.fatal({ err, origin }, 'uncaught exception; exiting');
    process.exit(1);
  });

  await app.listen({ port: config.PORT, host: config.HOST });
  // `link` is the address to open; the readable log makes it stand out.
  app.log.info({ link: config.publicUrl }, `Spawnpoint is up on ${config.publicUrl} (data in ${config.dataDir})`);

  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      app.log.info({ signal }, 'shutting down');
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

void main();
