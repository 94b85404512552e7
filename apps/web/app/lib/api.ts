import { API_RETRIES, errorEnvelope, errorMessage, isErrorCode, type ErrorCode } from '@spawnpoint/contracts';
import type { z } from 'zod';
import { handleApiError } from './api-errors.ts';
import { settings } from './settings.ts';

/** A failed call: the server's code (or NETWORK_ERROR), its message and per-field messages. */
export class ApiFailure extends Error {
  constructor(
    readonly code: ErrorCode | 'NETWORK_ERROR' | 'BAD_RESPONSE',
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface CallOptions<T extends z.ZodType> {
  body?: unknown;
  /** Validates the `result` of a success answer. */
  result: T;
  /** Background calls skip the §8 handling (no toast, no redirect). */
  background?: boolean;
  signal?: AbortSignal;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The one API client (spec §7): base address from `apiBaseUrl`, cookies sent, three retries on network
 * errors and on idempotent requests answered 429 or 5xx, every answer checked against the contracts.
 */
export async function api<T extends z.ZodType>(method: string, path: string, options: CallOptions<T>): Promise<z.infer<T>> {
  try {
    return await call(method, path, options);
  } catch (error) {
    const failure =
      error instanceof ApiFailure
        ? error
        : new ApiFailure('NETWORK_ERROR', 'Could not reach Spawnpoint. Check your connection and try again.');
    if (!options.background) handleApiError(failure);
    throw failure;
  }
}

async function call<T extends z.ZodType>(method: string, path: string, options: CallOptions<T>): Promise<z.infer<T>> {
  const init: RequestInit = { method, credentials: 'include', headers: { accept: 'application/json' } };
  if (options.signal) init.signal = options.signal;
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  let response: Response | null = null;
  for (let attempt = 0; ; attempt++) {
    try {
      response = await fetch(`${settings.apiBaseUrl}${path}`, init);
    } catch (error) {
      if (options.signal?.aborted || attempt >= API_RETRIES) throw error;
      await sleep(backoff(attempt));
      continue;
    }
    const retryable = IDEMPOTENT.has(method) && (response.status === 429 || response.status >= 500);
    if (!retryable || attempt >= API_RETRIES) break;
    await sleep(backoff(attempt));
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ApiFailure('BAD_RESPONSE', `The server answered with HTTP ${response.status}.`);
  }
  if (typeof body === 'object' && body !== null && (body as { status?: unknown }).status === 'SUCCESS') {
    const parsed = options.result.safeParse((body as { result?: unknown }).result);
    if (!parsed.success) throw new ApiFailure('BAD_RESPONSE', 'The server sent an answer this page does not understand. Reload the page.');
    return parsed.data;
  }
  const failure = errorEnvelope.safeParse(body);
  if (!failure.success) throw new ApiFailure('BAD_RESPONSE', `The server answered with HTTP ${response.status}.`);
  const code = failure.data.status;
  if (!isErrorCode(code)) throw new ApiFailure('BAD_RESPONSE', failure.data.message);
  throw new ApiFailure(code, failure.data.message || errorMessage(code), failure.data.fields ?? {});
}

function backoff(attempt: number): number {
  return 300 * 2 ** attempt;
}
