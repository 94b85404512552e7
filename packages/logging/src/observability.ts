/**
 * What the API and the agent tell an operator besides their logs: a request id that follows a call from the
 * API to an agent (and from a load balancer to the API), and Prometheus metrics of their HTTP traffic.
 * Each app adds its own gauges (servers by state, sockets, nodes) to the registry it gets here.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry, type MetricType } from 'prom-client';

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

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees it (headers
 * over 16 KB, a broken request line, two Content-Lengths, no request in time) is answered in the envelope
 * every other refusal uses, not Fastify's `{"error":…,"statusCode":…}`. The connection is closed after it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A connection reset or already closed: there is nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request did not arrive in time.']
        : [400, 'Bad Request', 'The request is not valid HTTP.'];
  const body = JSON.stringify({ status: 'INVALID_INPUT', message });
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  socket.destroy(error);
}

/** The content type of the metrics page (Prometheus' text format). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10] as const;

/** One method and route pattern: answers by status, and durations counted into the buckets. */
interface Series {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Per bucket (not cumulative), the last one for durations above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * The HTTP traffic as plain numbers, added up per request; prom-client reads them when the metrics page is
 * asked for. Every signed-in tab polls the API every 5 s, and prom-client's own `inc`/`observe` check and
 * hash their labels on every call, which cost the polled endpoint more than the rest of its bookkeeping.
 */
class HttpTally {
  // By route pattern, then method: both strings are the same objects on every request (Fastify's route
  // table, Node's method names), so the lookups reuse their cached hashes; one key joined per request cost a
  // new string and its hash every time.
  private readonly series = new Map<string, Map<string, Series>>();

  record(method: string, route: string, status: number, seconds: number): void {
    let methods = this.series.get(route);
    if (!methods) this.series.set(route, (methods = new Map()));
    let one = methods.get(method);
    if (!one) {
      one = { method, route, byStatus: new Map(), buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      methods.set(method, one);
    }
    one.byStatus.set(status, (one.byStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++;
    one.buckets[bucket] = (one.buckets[bucket] as number) + 1;
    one.sum += seconds;
    one.count++;
  }

  *all(): Generator<Series> {
    for (const methods of this.series.values()) yield* methods.values();
  }
}

type CounterLabel = 'method' | 'route' | 'status';
// `le` is the histogram's own label (the bucket's bound); prom-client refuses it among the label names.
type HistogramLabel = 'method' | 'route' | 'le';
type Values<M extends { get(): Promise<{ values: unknown[] }> }> = Awaited<ReturnType<M['get']>>['values'];

/** Requests answered, by method, route pattern and status, read from the tally. */
class TalliedCounter extends Counter<CounterLabel> {
  constructor(
    private readonly tally: HttpTally,
    configuration: ConstructorParameters<typeof Counter<CounterLabel>>[0],
  ) {
    super(configuration);
  }

  override async get(): ReturnType<Counter<CounterLabel>['get']> {
    const values: Values<Counter<CounterLabel>> = [];
    for (const { method, route, byStatus } of this.tally.all())
      for (const [status, value] of byStatus) values.push({ labels: { method, route, status: String(status) }, value });
    return { ...(await super.get()), values };
  }
}

// prom-client's typings name the type with an enum; the text page writes the word it is given.
const HISTOGRAM = 'histogram' as unknown as MetricType;

/** Their durations as a histogram, read from the tally. */
class TalliedHistogram extends Histogram<HistogramLabel> {
  constructor(
    private readonly tally: HttpTally,
    private readonly configuration: ConstructorParameters<typeof Histogram<HistogramLabel>>[0],
  ) {
    super(configuration);
  }

  override get(): ReturnType<Histogram<HistogramLabel>['get']> {
    return this.getForPromString();
  }

  /**
   * What the registry's text page reads from a histogram in prom-client 15 (the version is pinned, and
   * observability.test.ts reads the page); `get` gives the same, its labels being flat already.
   */
  async getForPromString(): ReturnType<Histogram<HistogramLabel>['get']> {
    const values: Values<Histogram<HistogramLabel>> = [];
    const { name } = this.configuration;
    const bucket = `${name}_bucket`;
    for (const { method, route, buckets, sum, count } of this.tally.all()) {
      let below = 0;
      DURATION_BUCKETS.forEach((bound, index) => {
        below += buckets[index] as number;
        values.push({ metricName: bucket, labels: { method, route, le: bound }, value: below });
      });
      values.push({ metricName: bucket, labels: { method, route, le: '+Inf' }, value: count });
      values.push({ metricName: `${name}_sum`, labels: { method, route }, value: sum });
      values.push({ metricName: `${name}_count`, labels: { method, route }, value: count });
    }
    const { help } = this.configuration;
    return { name, help, type: HISTOGRAM, aggregator: 'sum', collect: () => undefined, values };
  }
}

export interface HttpMetrics {
  /** The app's registry: the process's default figures and the HTTP traffic; each app adds its gauges. */
  registry: Registry;
  /**
   * Counts one finished request: give it to `requestLogController`, so no hook runs per request. Fastify
   * tells the controller of every finished request, failed ones too, as long as the app has a logger (the
   * API's and the agent's always do, `silent` included).
   */
  record(request: FastifyRequest, reply: FastifyReply): void;
}

/**
 * A registry of its own per app (tests build many apps in one process), with the process's default
 * figures (CPU, memory, event loop lag, GC) and the HTTP traffic: requests by method, route pattern (never
 * the raw path, so ids do not multiply the series) and status, and their duration.
 */
export function httpMetrics(prefix: 'spawnpoint_api_' | 'spawnpoint_agent_'): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  const tally = new HttpTally();
  new TalliedCounter(tally, {
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  new TalliedHistogram(tally, {
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time from the request to the end of its answer, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [...DURATION_BUCKETS],
    registers: [registry],
  });
  return {
    registry,
    record: (request, reply) =>
      tally.record(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000),
  };
}

/** Whether an Authorization header carries `token` as its bearer (constant time). */
export function bearerIs(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
