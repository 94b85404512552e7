import { createServer } from 'node:net';

/** Whether the node could listen on `port` now: another program (or a second copy of the product) may hold it. */
export function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
