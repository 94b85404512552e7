import {
  API_RETRIES,
  errorEnvelope,
  errorMessage,
  fillPath,
  isErrorCode,
  type CallInput,
  type Endpoint,
  type ErrorCode,
} from '@spawnpoint/contracts';
import type { z } from 'zod';
import { settings } from './settings.ts';

/**
 * A failed call: the server's code (or NETWORK_ERROR), its message and per-field messages. `details` says
 * what really happened when the failure was unexpected (the API's own error outside production, an answer
 * that did not fit, the browser's network error); only shown outside production (api-errors.ts).
 */
export class ApiFailure extends Error {
  constructor(
    readonly code: ErrorCode | 'NETWORK_ERROR' | 'BAD_RESPONSE',
    message: string,
    readonly fields: Record<string, string> = {},
    readonly details?: string,
  ) {
    super(message);
  }
}

export interface CallOptions<T extends z.ZodType> {
  body?: unknown;
  /** Validates the `result` of a success answer. */
  result: T;
  /** Background calls skip the failure handler (no toast, no redirect). */
  background?: boolean;
  signal?: AbortSignal;
}

/** What a call of an entry needs: exactly the parts its schemas declare, typed from them. */
export type EndpointInput<E extends Endpoint> = CallInput<E>;

/** An entry of the endpoint table that answers the JSON envelope. */
type JsonEndpoint = Endpoint & { result: z.ZodType };

/** The path of an entry with its `:name` parts filled in and its query appended. */
export function endpointUrl(endpoint: Endpoint, input: { params?: unknown; query?: unknown }): string {
  return fillPath(endpoint.path, input.params, input.query);
}

/**
 * Calls an entry of the endpoint table in contracts: the method, path, request parts and the answer's
 * schema all come from the entry the API registers its route from, so a change of shape fails the
 * typecheck here as well as in the API.
 */
export function call<E extends JsonEndpoint>(
  endpoint: E,
  input: EndpointInput<E>,
  options: { background?: boolean; signal?: AbortSignal } = {},
): Promise<z.infer<E['result']>> {
  const { body } = input as { body?: unknown };
  return api<E['result']>(endpoint.method, endpointUrl(endpoint, input), {
    result: endpoint.result,
    ...(body !== undefined ? { body } : {}),
    ...options,
  });
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the user sees of a failed call (a toast, a dialog, being signed out): set once by the root
 * (lib/api-errors.ts's handleApiError). A hook, not an import, so this module depends on nothing of the app's
 * state and the state modules can use it without an import cycle.
 */
let failureHandler: (failure: ApiFailure) => void = () => undefined;
export function setFailureHandler(handler: (failure: ApiFailure) => void): void {
  failureHandler = handler;
}
/** Shows a failure of a background call as a foreground one would be (a toast, being signed out). */
export function reportFailure(failure: ApiFailure): void {
  failureHandler(failure);
}

/**
 * What `call` runs (docs/design.md, How the parts talk): base address from `apiBaseUrl`, cookies sent,
 * three retries on network errors and on idempotent requests answered 429 or 5xx, every answer checked
 * against the contracts. Pages never use it directly: they call entries of the endpoint table.
 */
async function api<T extends z.ZodType>(method: string, path: string, options: CallOptions<T>): Promise<z.infer<T>> {
  try {
    return await send(method, path, options);
  } catch (error) {
    const failure =
      error instanceof ApiFailure
        ? error
        : new ApiFailure('NETWORK_ERROR', 'Could not reach Spawnpoint. Check your connection and try again.', {}, describeError(error));
    if (!options.background) failureHandler(failure);
    throw failure;
  }
}

async function send<T extends z.ZodType>(method: string, path: string, options: CallOptions<T>): Promise<z.infer<T>> {
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
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiFailure('BAD_RESPONSE', `The server answered with HTTP ${response.status}.`, {}, `${method} ${path}: ${excerpt(text)}`);
  }
  if (typeof body === 'object' && body !== null && (body as { status?: unknown }).status === 'SUCCESS') {
    const parsed = options.result.safeParse((body as { result?: unknown }).result);
    if (!parsed.success) {
      throw new ApiFailure(
        'BAD_RESPONSE',
        'The server sent an answer this page does not understand. Reload the page.',
        {},
        `${method} ${path}: ${describeIssues(parsed.error.issues)}`,
      );
    }
    return parsed.data;
  }
  const failure = errorEnvelope.safeParse(body);
  if (!failure.success) {
    throw new ApiFailure('BAD_RESPONSE', `The server answered with HTTP ${response.status}.`, {}, `${method} ${path}: ${excerpt(text)}`);
  }
  const code = failure.data.status;
  if (!isErrorCode(code)) throw new ApiFailure('BAD_RESPONSE', failure.data.message, {}, `${method} ${path}: unknown code ${code}`);
  throw new ApiFailure(code, failure.data.message || errorMessage(code), failure.data.fields ?? {}, failure.data.details);
}

/** `code: Invalid input: expected string, received number` for each way an answer did not fit. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || 'result'}: ${issue.message}`).join('; ');
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || '(empty body)';
}

function backoff(attempt: number): number {
  return 300 * 2 ** attempt;
}
