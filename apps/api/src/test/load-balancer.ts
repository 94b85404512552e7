import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * The small reverse proxy of the production-shaped harness: each request goes to an API process at random,
 * as a load balancer without affinity spreads many browsers, except that a Socket.IO session stays on the process that
 * opened it (what the deployment guide asks of a real balancer: sticky `/socket.io/`). A session's id
 * (`sid`) is learnt from the handshake's answer; its polling requests and its WebSocket upgrade follow it.
 * A backend that does not answer is skipped (the next one is tried), as a balancer's health check would.
 */
export async function startLoadBalancer(
  backends: string[],
  options: { host?: string; port?: number } = {},
): Promise<{ url: string; server: Server; backendOf(sid: string): string | undefined; close(): Promise<void> }> {
  const host = options.host ?? '127.0.0.1';
  const sessions = new Map<string, URL>();
  const targets = backends.map((b) => new URL(b));
  const sidOf = (url: string | undefined) => /[?&]sid=([^&]+)/.exec(url ?? '')?.[1];
  const pick = (url: string | undefined, skip = 0, first = Math.floor(Math.random() * targets.length)): URL => {
    const sid = sidOf(url);
    const sticky = sid ? sessions.get(sid) : undefined;
    if (sticky && skip === 0) return sticky;
    // A first pick at random, as many browsers behind a balancer land; a refused one moves to the next
    // (counted from this request's own first pick: requests at once must not move each other's).
    return targets[(first + skip) % targets.length] as URL;
  };

  // Connection headers are hop-by-hop belong to one hop: each leg keeps its own. Passing on the API's
  // "keep-alive: timeout=72" told clients this balancer keeps idle connections 72 s while it closes them after
  // Node's 5 s, so a request sent on one as it closed was reset (a POST is not sent again: "fetch failed").
  const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);
  const endToEnd = (headers: IncomingHttpHeaders) =>
    Object.fromEntries(Object.entries(headers).filter(([name]) => !hopByHop.has(name.toLowerCase())));

  // Bodies are read whole first (the API's are small), so a request a dead process refused goes to another.
  const forward = (
    incoming: IncomingMessage,
    body: Buffer,
    respond: (answer: IncomingMessage, target: URL) => void,
    fail: () => void,
    attempt = 0,
    first = Math.floor(Math.random() * targets.length),
  ): void => {
    const target = pick(incoming.url, attempt, first);
    const outgoing = request(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: endToEnd(incoming.headers) },
      (answer) => respond(answer, target),
    );
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      // Refused (nothing reached that process), or a kept connection to a process that died: an idempotent
      // request (as HTTP defines them: a file saved twice is the same file) is safe to send again, as nginx's
      // default proxy_next_upstream does, and another process may answer it.
      const idempotent = ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(incoming.method ?? '');
      const again = err.code === 'ECONNREFUSED' || (idempotent && (err.code === 'ECONNRESET' || err.code === 'EPIPE'));
      if (again && attempt + 1 < targets.length) forward(incoming, body, respond, fail, attempt + 1, first);
      else fail();
    });
    outgoing.end(body);
  };

  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    forward(
      incoming,
      Buffer.concat(chunks),
      (answer, target) => {
        response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        // The handshake's answer names the new session: it stays where it was opened.
        if (incoming.url?.startsWith('/socket.io/') && !sidOf(incoming.url)) {
          answer.once('data', (chunk: Buffer) => {
            const sid = /"sid":"([^"]+)"/.exec(chunk.toString('utf8'))?.[1];
            if (sid) sessions.set(sid, target);
          });
        }
        answer.pipe(response);
      },
      () => {
        if (!response.headersSent) response.writeHead(502);
        response.end();
      },
    );
  });
  server.on('upgrade', (incoming: IncomingMessage, socket, head: Buffer) => {
    const target = pick(incoming.url);
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) lines.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    const end = () => {
      upstream.destroy();
      socket.destroy();
    };
    upstream.on('error', end);
    socket.on('error', end);
    upstream.on('close', end);
    socket.on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    backendOf: (sid) => sessions.get(sid)?.origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
