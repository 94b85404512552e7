import { errorCatalogue, type ErrorCode } from '@spawnpoint/contracts';
import type { FastifyError, FastifyInstance } from 'fastify';
import { ZodError, type z } from 'zod';

/** A failure answered with the catalogue's status and message. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly fields?: Record<string, string>,
    message?: string,
  ) {
    super(message ?? errorCatalogue[code].message);
  }
}

export function fieldsOf(error: ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join('.') : '_';
    fields[key] ??= issue.message;
  }
  return fields;
}

/** Parses a request part with a contracts schema; bad input becomes INVALID_INPUT with field messages. */
export function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw new ApiError('INVALID_INPUT', fieldsOf(result.error));
  return result.data;
}

/**
 * Parses a URL's params or query. No value may hold a NUL byte: no id, name or path has one, and
 * PostgreSQL cannot store one, so it would otherwise fail deep inside a query (a 500 for bad input).
 */
export function parseUrlPart<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  if (value && typeof value === 'object') {
    const fields: Record<string, string> = {};
    for (const [key, given] of Object.entries(value))
      if ((Array.isArray(given) ? given : [given]).some((v) => typeof v === 'string' && v.includes('\0')))
        fields[key] = 'This value may not hold a NUL character.';
    if (Object.keys(fields).length) throw new ApiError('INVALID_INPUT', fields);
  }
  return parse(schema, value);
}

/**
 * SQLSTATEs of text PostgreSQL cannot store (a NUL byte, a character the encoding lacks): the caller's
 * input reached a query (a free-text field, say), which is bad input to answer, not a failure of ours.
 */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);
function unstorableText(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; cause && typeof cause === 'object' && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && UNSTORABLE_TEXT.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

export function failureBody(code: ErrorCode, fields?: Record<string, string>, message?: string, details?: string) {
  return {
    status: code,
    message: message ?? errorCatalogue[code].message,
    ...(fields && Object.keys(fields).length ? { fields } : {}),
    ...(details ? { details } : {}),
  };
}

/**
 * The one place that turns any thrown error into the envelope. In production internals never leave the
 * process; outside it an unexpected error's message and stack go along as `details` (docs/guide.md, "Errors
 * as data"), so a developer sees the cause in the toast, not only in the log.
 */
export function installErrorHandling(app: FastifyInstance, options: { production: boolean }): void {
  app.setErrorHandler((error: FastifyError | ApiError | ZodError, request, reply) => {
    if (error instanceof ApiError) {
      // Our own INTERNAL_ERROR (an agent answer that is not the protocol, say) was logged where thrown.
      const details = error.code === 'INTERNAL_ERROR' && !options.production ? error.stack : undefined;
      return reply.status(errorCatalogue[error.code].status).send(failureBody(error.code, error.fields, error.message, details));
    }
    if (error instanceof ZodError) {
      return reply.status(400).send(failureBody('INVALID_INPUT', fieldsOf(error)));
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 429) return reply.status(429).send(failureBody('RATE_LIMIT'));
    if (status === 413) return reply.status(413).send(failureBody('INVALID_INPUT', { _: 'The request body is too large.' }));
    if (status === 415) return reply.status(415).send(failureBody('INVALID_INPUT', { _: 'The request body must be JSON.' }));
    if (status >= 400 && status < 500) return reply.status(400).send(failureBody('INVALID_INPUT'));
    if (unstorableText(error))
      return reply.status(400).send(
        failureBody('INVALID_INPUT', {
          _: 'The request holds a character that cannot be saved (such as a NUL byte). Remove it and try again.',
        }),
      );
    request.log.error({ err: error }, 'unhandled error');
    const details = options.production ? undefined : (error.stack ?? `${error.name}: ${error.message}`);
    return reply.status(500).send(failureBody('INTERNAL_ERROR', undefined, undefined, details));
  });
}

export function ok<T>(result: T) {
  return { status: 'SUCCESS' as const, result };
}
