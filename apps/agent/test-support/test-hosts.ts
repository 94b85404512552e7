import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

/**
 * Hosts for network tests, made on this machine only: each is a network namespace of its own joined to the
 * node by a veth pair (`hostSide` on the node, `address` inside), with a TCP server answering "hello from
 * <name>" on `port`. Packets to it never leave the machine. Give one a private, CGNAT or metadata address to
 * stand for what a game must not reach, and one a public-looking documentation address (198.51.100.0/24)
 * to stand for the internet.
 */
export interface TestHost {
  name: string;
  address: string;
  port: number;
  close(): void;
}

export async function startTestHost(name: string, address: string, hostSide: string, port: number): Promise<TestHost> {
  const ns = `sptest-${name}`;
  const link = `spt${name}`.slice(0, 15);
  const cleanup = () => {
    try {
      execFileSync('ip', ['netns', 'delete', ns], { stdio: 'ignore' });
    } catch {
      // Not there.
    }
  };
  cleanup();
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  ip('netns', 'add', ns);
  ip('link', 'add', link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
  ip('addr', 'add', `${hostSide}/30`, 'dev', link);
  ip('link', 'set', link, 'up');
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  ip('-n', ns, 'addr', 'add', `${address}/30`, 'dev', 'eth0');
  ip('-n', ns, 'link', 'set', 'eth0', 'up');
  ip('-n', ns, 'route', 'add', 'default', 'via', hostSide);
  const server: ChildProcess = spawn(
    'ip',
    [
      'netns',
      'exec',
      ns,
      process.execPath,
      '-e',
      `require('node:net').createServer((s) => s.end('hello from ${name}')).listen(${port}, '0.0.0.0', () => console.log('ready'))`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    server.stdout?.once('data', () => resolve());
    server.once('exit', (code) => reject(new Error(`the test host ${name} ended (${code})`)));
  });
  return {
    name,
    address,
    port,
    close() {
      server.kill('SIGKILL');
      cleanup();
    },
  };
}
