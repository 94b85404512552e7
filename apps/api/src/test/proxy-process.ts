import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../../../test-support/free-port.ts';
import { serviceArgs } from '../../../../test-support/service-command.ts';

const root = path.resolve(import.meta.dirname, '../../../..');

export interface ProxyProcess {
  port: number;
  /** Starts the real join proxy (its own process, as `npm start` runs it) reporting to the API at `apiUrl`. */
  start(apiUrl: string): void;
  stop(): Promise<void>;
}

/** A real join proxy for API tests, on a free high port of 127.0.0.1. */
export async function prepareProxy(token: string): Promise<ProxyProcess> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  return {
    port,
    start(apiUrl) {
      child = spawn(process.execPath, serviceArgs('proxy'), {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, PROXY_PORT: String(port), PROXY_HOST: '127.0.0.1', PROXY_TOKEN: token, API_URL: apiUrl, LOG_LEVEL: 'warn' },
      });
    },
    async stop() {
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child?.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
