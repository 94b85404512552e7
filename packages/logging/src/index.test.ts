import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loggerOptions, prettyStream, requestLogController, resolveLogFormat } from './index.ts';

function collect() {
  const lines: string[] = [];
  return { lines, sink: { write: (text: string) => lines.push(text) }, text: () => lines.join('') };
}

describe('resolveLogFormat', () => {
  it('is JSON in production, readable elsewhere, and what was asked whenever asked', () => {
    expect(resolveLogFormat(undefined, 'production')).toBe('json');
    expect(resolveLogFormat(undefined, 'development')).toBe('pretty');
    expect(resolveLogFormat(undefined, 'test')).toBe('pretty');
    expect(resolveLogFormat(undefined, undefined)).toBe('pretty');
    expect(resolveLogFormat('json', 'development')).toBe('json');
    expect(resolveLogFormat('pretty', 'production')).toBe('pretty');
  });
});

describe('loggerOptions', () => {
  it("keeps pino's own destination for JSON and for silent", () => {
    expect(loggerOptions({ level: 'info', format: 'json', name: 'api' })).toEqual({ level: 'info' });
    expect(loggerOptions({ level: 'silent', format: 'pretty', name: 'api' })).toEqual({ level: 'silent' });
  });
});

/** A Fastify app logging JSON lines at `level` through the request log controller, with a `/ok` route. */
function jsonLogged(level: 'info' | 'debug') {
  const lines: string[] = [];
  const app = Fastify({
    logger: { level, stream: { write: (line: string) => lines.push(line) } },
    logController: requestLogController(level),
  });
  app.get('/ok', async () => 'fine');
  return { app, lines };
}

describe('request lines', () => {
  // Every signed-in tab polls the server list every 5 s: at the default level that must not write a line.
  it('writes nothing for a request that succeeded at info, and one JSON line naming a failed one', async () => {
    const { app, lines } = jsonLogged('info');
    app.get('/broken', async () => {
      throw new Error('boom');
    });
    await app.inject('/ok');
    expect(lines).toEqual([]);
    await app.inject('/nope');
    await app.inject('/broken');
    await app.close();
    const requests = lines.map((line) => JSON.parse(line) as { msg: string; req?: { url: string }; res?: { statusCode: number } });
    const finished = requests.filter((line) => line.msg === 'request completed');
    expect(finished.map((line) => [line.req?.url, line.res?.statusCode])).toEqual([
      ['/nope', 404],
      ['/broken', 500],
    ]);
    expect(requests.some((line) => line.msg === 'incoming request')).toBe(false);
  });

  it('writes one line for every request at debug', async () => {
    const { app, lines } = jsonLogged('debug');
    await app.inject('/ok');
    await app.close();
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg).filter((msg) => msg.includes('request'))).toEqual([
      'request completed',
    ]);
  });
});

describe('pretty lines', () => {
  it('turns a Fastify log into readable lines: failed requests in one line, links on their own', async () => {
    const out = collect();
    const app = Fastify({
      logger: loggerOptions({ level: 'info', format: 'pretty', name: 'api', colorize: false, sink: out.sink }),
      logController: requestLogController('info'),
    });
    app.get('/ok', async () => 'fine');
    app.get('/mail', async (request) => {
      request.log.info({ to: 'a@example.com', link: 'http://localhost:3000/?verify_token=abc' }, 'mail written');
      return 'sent';
    });
    await app.inject('/ok');
    await app.inject('/mail');
    await app.inject('/nope?x=1');
    app.log.info({ link: 'http://localhost:3000' }, 'Spawnpoint is up on http://localhost:3000 (data in /tmp/data)');
    await app.close();

    const text = out.text();
    expect(text).not.toContain('{"level"');
    expect(text).not.toContain('incoming request');
    expect(text).not.toContain('GET /ok');
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] INFO \(api\): GET \/nope\?x=1 → 404 in \d+ ms$/m);
    expect(text).toMatch(/INFO \(api\): mail written\n {4}→ http:\/\/localhost:3000\/\?verify_token=abc\n {4}to: "a@example.com"\n/);
    expect(text).toContain('INFO (api): Spawnpoint is up on http://localhost:3000 (data in /tmp/data)\n');
    expect(text).not.toMatch(/pid|hostname|reqId/);
  });

  it('shows every request at debug, makes links stand out in colour, and strips control characters', () => {
    const out = collect();
    const stream = prettyStream({ level: 'debug', name: 'agent local', colorize: true, sink: out.sink });
    const base = { level: 30, time: Date.now(), pid: 1, hostname: 'h' };
    stream.write(
      JSON.stringify({
        ...base,
        reqId: 'req-1',
        req: { method: 'GET', url: '/v1/servers' },
        res: { statusCode: 200 },
        responseTime: 2.4,
        msg: 'request completed',
      }) + '\n',
    );
    stream.write(JSON.stringify({ ...base, link: 'http://x.test/a', msg: 'mail written' }) + '\n');
    stream.write(JSON.stringify({ ...base, msg: 'name \u001b[2Jcleared' }) + '\n');
    stream.write(JSON.stringify({ ...base, link: 'http://x.test/', msg: 'up on http://x.test/ now' }) + '\n');
    stream.write(JSON.stringify({ ...base, msg: 'reporting to http://api.test/' }) + '\n');
    stream.write('not json\n');

    const text = out.text();
    expect(text).toContain('(agent local)');
    expect(text).toContain('GET /v1/servers → 200 in 2 ms');
    const codes = '(\\u001b\\[\\d+m)*';
    const underlined = (url: string) => new RegExp(`\\u001b\\[4m${codes}${url.replaceAll('.', '\\.')}`);
    expect(text).toMatch(new RegExp(`mail written\\n {4}.*→.*${underlined('http://x.test/a').source}`));
    expect(text).toMatch(new RegExp(`up on ${codes}${underlined('http://x.test/').source}.* now`));
    expect(text).not.toMatch(underlined('http://api.test/')); // only a line's link stands out
    expect(text).not.toContain('\u001b[2J');
    expect(text).toContain('name [2Jcleared'); // the escape character is gone
    expect(text.endsWith('not json\n')).toBe(true);
  });
});
