import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test-support/free-port.ts';
import { until } from '../../../../test-support/until.ts';
import { pluginRuntime } from '../../test-support/plugin-runtime.ts';
import { startTestAgent, type TestAgent } from '../../test-support/test-agent.ts';
import { CLONE_NAMESPACE_FLAGS, deniedSyscalls } from './seccomp.ts';

/**
 * The kernel surface of a real cage, tried from tenant code (a plugin in the game process): each refused
 * system call is made through perl's `syscall` (perl is in every Debian's /usr), and `unshare -Ur`, which
 * worked in the cage before the filter, is run as an attacker would.
 */
let t: TestAgent;

beforeAll(async () => {
  t = await startTestAgent('seccomp', { runtimes: { 'flying-squid': pluginRuntime } });
});
afterAll(async () => {
  await t.close();
});

const consoleOf = (id: string) => t.agent.servers.get(id)?.console.lines().join('\n') ?? '';

describe('the seccomp filter', () => {
  it('refuses namespaces, mounts, keyrings, bpf, perf, ptrace and the rest inside a real cage; the game still runs', async () => {
    const denied = deniedSyscalls();
    expect(Object.keys(denied)).toEqual(
      expect.arrayContaining(['unshare', 'setns', 'mount', 'keyctl', 'bpf', 'perf_event_open', 'ptrace']),
    );
    const clone = process.arch === 'arm64' ? 220 : 56;
    const socket = process.arch === 'arm64' ? 198 : 41;
    // Arguments that would succeed without the filter where a call can (unshare a user namespace, read the
    // session keyring's id, clone into a new user namespace); zeros elsewhere.
    const args: Record<string, string> = {
      unshare: String(0x10000000),
      keyctl: '0, -3, 0',
      setns: '-1, 0',
    };
    const perl = [
      'use POSIX;',
      ...Object.entries(denied).map(
        ([name, nr]) => `$! = 0; syscall(${nr}, ${args[name] ?? '0, 0, 0, 0, 0, 0'}); print "${name}=", $!+0, "\\n";`,
      ),
      `$! = 0; my $r = syscall(${clone}, ${(CLONE_NAMESPACE_FLAGS & 0x10000000) | 17}, 0, 0, 0, 0); POSIX::_exit(0) if $r == 0; print "clone_newuser=", $!+0, "\\n";`,
      `$! = 0; syscall(435, 0, 0); print "clone3=", $!+0, "\\n";`,
      // A virtual machine's channel to its host; an ordinary socket still opens.
      `$! = 0; syscall(${socket}, 40, 1, 0); print "vsock=", $!+0, "\\n";`,
      `$! = 0; my $s = syscall(${socket}, 2, 1, 0); print "inet=", ($s >= 0 ? 0 : $!+0), "\\n";`,
      // An ordinary fork still works.
      `my $pid = fork(); POSIX::_exit(0) if $pid == 0; waitpid($pid, 0); print "fork=", ($pid > 0 ? 0 : $!+0), "\\n";`,
    ].join('\n');
    const plugin = `
import { spawnSync } from 'node:child_process';
const calls = spawnSync('/usr/bin/perl', ['-e', ${JSON.stringify(perl)}], { encoding: 'utf8' });
const unshare = spawnSync('/usr/bin/unshare', ['-Ur', '/usr/bin/true'], { encoding: 'utf8' });
console.log('KERNEL ' + JSON.stringify({ calls: calls.stdout, callsError: calls.stderr, unshare: [unshare.status, unshare.stderr] }));
`;
    const port = await freePort();
    const res = await t.call('PUT', '/v1/servers/kernel', {
      serverId: 'kernel',
      software: 'flying-squid',
      version: '1.21.4',
      port,
      memoryMb: 512,
      diskMb: 1024,
      maxPlayers: 5,
      motd: 'kernel',
    });
    expect(res.body.status).toBe('SUCCESS');
    const write = await fetch(`${t.base}/v1/servers/kernel/files/write?path=plugin.mjs`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
      body: Buffer.from(plugin),
    });
    expect(((await write.json()) as { status: string }).status).toBe('SUCCESS');
    expect((await t.call('POST', '/v1/servers/kernel/power', { action: 'start' })).body.status).toBe('SUCCESS');
    const line = await until(
      () => consoleOf('kernel'),
      (c) => c.includes('KERNEL '),
      60_000,
    );
    const report = JSON.parse(line.slice(line.indexOf('KERNEL ') + 7).split('\n')[0] as string) as {
      calls: string;
      callsError: string;
      unshare: [number | null, string];
    };
    const errno = Object.fromEntries(
      report.calls
        .trim()
        .split('\n')
        .map((l) => l.split('=') as [string, string]),
    );
    const EPERM = '1';
    for (const name of [...Object.keys(denied), 'clone_newuser', 'vsock']) expect(errno[name], name).toBe(EPERM);
    expect(errno.inet).toBe('0');
    // clone3 answers ENOSYS, so libc falls back to clone, whose flags the filter reads.
    expect(errno.clone3).toBe('38');
    expect(errno.fork).toBe('0');
    expect(report.unshare[0]).not.toBe(0);
    expect(report.unshare[1]).toMatch(/Operation not permitted/);
    // The game itself runs under the filter.
    await until(
      () => t.agent.servers.get('kernel')?.state,
      (s) => s === 'online',
    );
  });
});
