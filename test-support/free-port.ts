import { createServer } from 'node:net';

// Below Linux's ephemeral range (32768+), which outgoing connections of parallel suites draw from: a port
// picked there can be taken by a connection before the server that wanted it binds (EADDRINUSE). Above the
// ports npm start uses (3000, 4000), under the join proxy's 25565 and the test game ports (26000+).
const LOW = 12_000;
const HIGH = 25_000;

function tryPort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago, drawn at random outside the ephemeral range. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await tryPort(port)) return port;
  }
}
