/**
 * What the API and the agent tell an operator besides their logs: a request id that follows a call from the
 * API to an agent (and from a load balancer to the API), and Prometheus metrics of their HTTP traffic.
 * Each app adds its own gauges (servers by state, sockets, nodes) to the registry it gets here.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The header a request id travels in: a load balancer's to the API, the API's to an agent. */
export const REQUEST_ID_HEADER = 'x-request-id';
const GIVEN_ID = /^[A-Za-z0-9._:-]{1,64}$/;
// Unique across processes without a random draw per request: a per-process prefix and a counter.
const idPrefix = randomBytes(4).toString('hex');
let idCounter = 0;

/**
 * Fastify's `genReqId`: the caller's id when it looks like one (letters, digits, `._:-`, at most 64), so a
 * call keeps one id from the load balancer through the API to the agent; otherwise a new one.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  if (typeof given === 'string' && GIVEN_ID.test(given)) return given;
  return `${idPrefix}-${(++idCounter).toString(36)}`;
}

/** The content type of the metrics page (Prometheus' text format). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * A registry of its own per app (tests build many apps in one process), with the process's default
 * figures (CPU, memory, event loop lag, GC) and the HTTP traffic: requests by method, route pattern (never
 * the raw path, so ids do not multiply the series) and status, and their duration.
 */
export function httpMetrics(app: FastifyInstance, prefix: 'spawnpoint_api_' | 'spawnpoint_agent_'): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  const requests = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time from the request to the end of its answer, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  // Each series is looked up once and kept: the polled endpoint pays a map lookup, not label hashing.
  const series = new Map<string, { duration: { observe(value: number): void }; byStatus: Map<number, { inc(): void }> }>();
  app.addHook('onResponse', (request, reply, done) => {
    const method = request.method;
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${method} ${route}`;
    let one = series.get(key);
    if (!one) series.set(key, (one = { duration: duration.labels(method, route), byStatus: new Map() }));
    const status = reply.statusCode;
    let counter = one.byStatus.get(status);
    if (!counter) one.byStatus.set(status, (counter = requests.labels(method, route, String(status))));
    counter.inc();
    one.duration.observe(reply.elapsedTime / 1000);
    done();
  });
  return registry;
}

/** Whether an Authorization header carries `token` as its bearer (constant time). */
export function bearerIs(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
