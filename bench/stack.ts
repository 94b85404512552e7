import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** The product started as `npm start` starts it, with a signed-in, verified client for the benchmarks. */
export async function startStack(options: {
  port: number;
  dataDir: string;
  gamePorts: string;
  proxyPort?: number;
  env?: Record<string, string>;
}) {
  const base = `http://127.0.0.1:${options.port}`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(options.port),
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      GAME_PORT_RANGE: options.gamePorts,
      RATE_LIMIT_FACTOR: '1000',
      PUBLIC_URL: base,
      // No join proxy unless a figure goes through it (25565 may be another copy's).
      PROXY_PORT: String(options.proxyPort ?? 0),
      ...options.env,
    },
  });
  let cookie = '';
  async function call(method: string, url: string, body?: unknown) {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { cookie, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) cookie = setCookie.split(';')[0] ?? '';
    return (await res.json()) as { status: string; result: Record<string, unknown> & { agents?: string[] } };
  }
  for (;;) {
    try {
      if ((await call('GET', '/healthz')).result.agents?.includes('local')) break;
    } catch {
      // still starting
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await call('POST', '/v1/auth/register', { emailAddress: `bench-${Date.now()}@example.com`, password: 'bench password 123' });
  await new Promise((r) => setTimeout(r, 300));
  const mail = readdirSync(path.join(options.dataDir, 'mail'))
    .map((f) =>
      readFileSync(path.join(options.dataDir, 'mail', f), 'utf8')
        .replace(/=\r?\n/g, '')
        .replace(/=3D/g, '='),
    )
    .join('\n');
  await call('POST', '/v1/auth/verify', { token: /verify_token=([A-Za-z0-9_-]+)/.exec(mail)?.[1] });

  function apiProcess() {
    const api = processTree(child.pid as number).find((p) => p.args.includes('apps/api/src/main.ts'));
    if (!api) throw new Error('no API process in the stack');
    return api;
  }

  return {
    base,
    call,
    cookie: () => cookie,
    /** Resident memory of the whole process tree (launcher, API, agent, game servers), in MB. */
    rssMb(): number {
      const tree = processTree(child.pid as number);
      return Math.round(tree.reduce((sum, p) => sum + p.rssKb, 0) / 1024);
    },
    /** User + system CPU seconds the API process has used so far. */
    apiCpuSeconds(): number {
      const api = apiProcess();
      const fields = readFileSync(`/proc/${api.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    },
    /** Resident memory of the API process alone, in MB. */
    apiRssMb(): number {
      return Math.round(apiProcess().rssKb / 1024);
    },
    stop: () => child.kill('SIGTERM'),
    /** Stops everything and resolves once `npm start`'s supervisor has exited (its parts with it). */
    stopped: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** A process and everything it started, as `ps` lists them now. */
function processTree(root: number): { pid: number; rssKb: number; args: string }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,args='])
    .toString()
    .trim()
    .split('\n')
    .map((line) => {
      const [pid, ppid, rss, ...args] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), rssKb: Number(rss), args: args.join(' ') };
    });
  const pids = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) {
      if (pids.has(row.ppid) && !pids.has(row.pid)) {
        pids.add(row.pid);
        grew = true;
      }
    }
  }
  return rows.filter((row) => pids.has(row.pid));
}
