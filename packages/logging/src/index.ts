/**
 * How the API and the agent write their logs. Both use Fastify's pino logger; this decides where its lines go.
 *
 * - `json`: pino's own output, one JSON object a line — for production (log collectors) and whenever asked.
 * - `pretty`: for people at a terminal (`npm start`): time, level, which part spoke (`api`, `agent`) and the
 *   message on one line; a line's `link` (the address a person should open: the site at start, a mailed link)
 *   stands out.
 *
 * In both, a request writes one line when it is done, and only when it failed (status ≥ 400 or an error)
 * unless LOG_LEVEL is debug or trace (`requestLogController`): Fastify's default is two lines for every
 * request, which at `info` is two log lines every 5 s for each open dashboard tab.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { prettyFactory } from 'pino-pretty';

export * from './observability.ts';

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What was asked (LOG_FORMAT) wins; otherwise JSON in production and a readable log everywhere else. */
export function resolveLogFormat(asked: LogFormat | undefined, nodeEnv: string | undefined): LogFormat {
  return asked ?? (nodeEnv === 'production' ? 'json' : 'pretty');
}

/** Where pretty lines go; `process.stdout` outside tests. */
export interface LineSink {
  write(text: string): unknown;
}

export interface LoggerSettings {
  level: LogLevel;
  format: LogFormat;
  /** Shown on every pretty line, so the API's and the agent's lines can be told apart in one terminal. */
  name: string;
  /** Colours in pretty lines; by default when the output is a terminal that takes them (and NO_COLOR is unset). */
  colorize?: boolean;
  sink?: LineSink;
}

/** Fastify's `logger` option. JSON (and `silent`) keep pino's own destination; pretty gets a stream of its own. */
export function loggerOptions(settings: LoggerSettings): { level: LogLevel; stream?: { write(line: string): void } } {
  if (settings.format === 'json' || settings.level === 'silent') return { level: settings.level };
  return { level: settings.level, stream: prettyStream(settings) };
}

/** Fastify's `logController`: one line per finished request, for failed ones only at `info` and above. */
class RequestLog extends LogController {
  constructor(
    private readonly everyRequest: boolean,
    private readonly finished: ((request: FastifyRequest, reply: FastifyReply) => void) | undefined,
  ) {
    super();
  }

  override incomingRequest(): void {
    // The finished request's line names the method and path; a line at its start only doubles the volume.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Called from the answer's `finish` event, outside Fastify's hooks: nothing in it may throw there.
    try {
      this.finished?.(request, reply);
    } catch (err) {
      reply.log.error({ err }, 'could not count the request in the metrics');
    }
    if (!error && reply.statusCode < 400 && !this.everyRequest) return;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

/**
 * `finished` is told of every finished request (the HTTP metrics): Fastify calls the controller for each
 * one anyway, so counting there spares every request a hook of its own.
 */
export function requestLogController(level: LogLevel, finished?: (request: FastifyRequest, reply: FastifyReply) => void): LogController {
  return new RequestLog(level === 'debug' || level === 'trace', finished);
}

// Characters that could move the cursor or recolour the terminal; tabs and newlines stay.
// eslint-disable-next-line no-control-regex
const UNSAFE_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
const clean = (value: unknown) => String(value).replace(UNSAFE_CONTROL, '');

/** Marks a line the formatter shows dimmed: request lines and Fastify's listening lines. */
const DIM = Symbol('dim');

interface LogLine {
  msg?: unknown;
  reqId?: unknown;
  req?: { method?: unknown; url?: unknown };
  res?: { statusCode?: unknown };
  responseTime?: unknown;
  link?: unknown;
  [DIM]?: boolean;
  [key: string]: unknown;
}

/** A pino destination that turns each JSON line into a readable one, written at once (a last line before exit is kept). */
export function prettyStream(settings: Omit<LoggerSettings, 'format'>): { write(line: string): void } {
  const sink = settings.sink ?? process.stdout;

  const prettify = prettyFactory({
    ...(settings.colorize === undefined ? {} : { colorize: settings.colorize }),
    translateTime: 'SYS:HH:MM:ss',
    // pid and hostname say nothing at one terminal; request ids only tied Fastify's two request lines together.
    ignore: 'pid,hostname,reqId,req,res,responseTime,link',
    messageFormat: (log, messageKey, _levelLabel, { colors }) => {
      const line = log as LogLine;
      const message = clean(line[messageKey] ?? '');
      if (line[DIM]) return colors.dim(message);
      if (typeof line.link !== 'string') return message;
      // The link stands out where the message names it, or else on a line of its own.
      const link = clean(line.link);
      const highlighted = colors.bold(colors.underline(colors.greenBright(link)));
      return message.includes(link) ? message.replaceAll(link, highlighted) : `${message}\n    ${colors.bold('→')} ${highlighted}`;
    },
  });
  const print = (line: LogLine) => {
    const output = prettify({ ...line, name: settings.name });
    if (output) sink.write(output);
  };

  return {
    write(chunk: string) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(chunk);
      } catch {
        parsed = undefined;
      }
      // Anything but a JSON object (pino writes one per line) is passed on as it came.
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        sink.write(chunk);
        return;
      }
      const line: LogLine = { ...parsed };
      // A finished request reads "GET /path → 404 in 3 ms" (its req and res are not repeated below it;
      // an error that ended it is).
      if (line.msg === 'request completed' || line.msg === 'request errored') {
        const request = line.req ? `${clean(line.req.method)} ${clean(line.req.url)}` : 'a request';
        const status = Number(line.res?.statusCode);
        const ms = typeof line.responseTime === 'number' ? ` in ${Math.round(line.responseTime)} ms` : '';
        print({ ...line, msg: `${request} → ${status}${ms}`, [DIM]: line.msg === 'request completed' });
        return;
      }
      if (typeof line.msg === 'string' && line.msg.startsWith('Server listening at ')) line[DIM] = true;
      print(line);
    },
  };
}
