import type { Endpoint } from '@spawnpoint/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { z } from 'zod';
import { ApiFailure, call, endpointUrl, reportFailure, type EndpointInput } from './api.ts';

/** An entry of the endpoint table that answers the JSON envelope. */
type JsonEndpoint = Endpoint & { result: z.ZodType };

export type EndpointLoad<T> =
  /** Not asked (the hook is not enabled: the user may not see it). */
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'failed'; message: string; failure: ApiFailure | null }
  | { status: 'ready'; data: T };

export interface EndpointQuery<T> {
  load: EndpointLoad<T>;
  /** Asks again; the page keeps what it shows until the answer comes. Resolves to the answer, or null. */
  reload(): Promise<T | null>;
  /** Shows an answer the page already has (what a change answered), newer than any read still on its way. */
  set(data: T): void;
  /** Changes what is shown by a live event, without cancelling a read on its way. */
  patch(change: (current: T) => T): void;
  /**
   * Why what is shown is not the answer to what was asked last: a read again failed and the page kept its
   * last answer (said in the failure's words, as `failed` would); null once a read answers.
   */
  staleBecause: string | null;
}

/** Failures whose own words say nothing a user can act on: the page's message says what to do instead. */
const GENERIC_FAILURES: readonly ApiFailure['code'][] = ['NETWORK_ERROR', 'BAD_RESPONSE', 'INTERNAL_ERROR'];
/** Failures no page expects (an answer that does not fit, the API's own error). */
const UNEXPECTED_FAILURES: readonly ApiFailure['code'][] = ['BAD_RESPONSE', 'INTERNAL_ERROR'];

/**
 * What a failed read does: a page that shows nothing yet shows the failure (the returned state); it is also
 * shown as any call's would be: for a read again (the page keeps its content), an ended session (signs out),
 * and what went wrong unexpectedly (outside production its details say what). `quiet`: a refresh of its own,
 * whose failure is not worth a toast every few seconds (a lost connection has its own banner). What was
 * shown and is gone now (NOT_FOUND: deleted, taken off a list) is not kept: the page says so instead.
 */
function failedRead(error: unknown, shown: boolean, quiet: boolean, failureMessage: string): EndpointLoad<never> | null {
  const failure = error instanceof ApiFailure ? error : null;
  const gone = failure?.code === 'NOT_FOUND';
  const worthSaying = failure && !gone && (shown || UNEXPECTED_FAILURES.includes(failure.code));
  if (failure && (failure.code === 'NOT_AUTHENTICATED' || (worthSaying && !quiet))) reportFailure(failure);
  if (shown && !gone) return null;
  return { status: 'failed', message: messageOf(failure, failureMessage), failure };
}

/** A failure in its own words, unless they say nothing a user can act on. */
function messageOf(failure: ApiFailure | null, failureMessage: string): string {
  return failure && !GENERIC_FAILURES.includes(failure.code) ? failure.message : failureMessage;
}

/**
 * The one way a page reads an endpoint: asked when the page shows it (and again when what it asks changes),
 * cancelled when the page goes, and only the newest answer counts, so an older read still on its way never
 * overwrites a newer one or what a change answered. A first read that fails is the page's to show
 * (`failed`, where its content would be); a read again that fails keeps what the page shows and says so as
 * any call does (a toast). An ended session signs out either way, and an unexpected failure is also shown
 * as any call's (with its details outside production).
 */
export function useEndpoint<E extends JsonEndpoint>(
  endpoint: E,
  input: EndpointInput<E>,
  options: {
    enabled?: boolean;
    failureMessage?: string;
    /** Asks again every so many milliseconds while shown (what changes outside the page: players online). */
    refreshMs?: number;
    /**
     * When what is asked changes (a search typed), the last answer stays shown until the new one comes, rather
     * than "Loading…"; a failure of that read is then quiet, as a refresh's is.
     */
    keepPrevious?: boolean;
  } = {},
): EndpointQuery<z.infer<E['result']>> {
  type T = z.infer<E['result']>;
  const enabled = options.enabled ?? true;
  const failureMessage = options.failureMessage ?? 'This could not be loaded. Please reload the page.';
  const [load, setLoad] = useState<EndpointLoad<T>>(enabled ? { status: 'loading' } : { status: 'idle' });
  const [staleBecause, setStaleBecause] = useState<string | null>(null);
  // The newest read (or set); an answer of an older one is dropped.
  const latest = useRef(0);
  const inFlight = useRef<AbortController | null>(null);
  // Whether an answer is on the page: a failed read again then leaves it there.
  const shown = useRef(false);
  const url = endpointUrl(endpoint, input as { params?: unknown; query?: unknown });
  const asked = useRef({ endpoint, input });
  asked.current = { endpoint, input };

  // `quiet`: a refresh of its own (failedRead).
  const read = useCallback(
    async (quiet = false): Promise<T | null> => {
      const ticket = ++latest.current;
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      try {
        const data = await call(asked.current.endpoint, asked.current.input, { background: true, signal: controller.signal });
        if (ticket === latest.current) {
          shown.current = true;
          setLoad({ status: 'ready', data });
          setStaleBecause(null);
        }
        return data;
      } catch (error) {
        if (ticket !== latest.current || controller.signal.aborted) return null;
        const failed = failedRead(error, shown.current, quiet, failureMessage);
        if (failed) {
          shown.current = false;
          setLoad(failed);
        } else setStaleBecause(messageOf(error instanceof ApiFailure ? error : null, failureMessage));
        return null;
      } finally {
        if (inFlight.current === controller) inFlight.current = null;
      }
    },
    [failureMessage],
  );

  const keepPrevious = options.keepPrevious ?? false;
  useEffect(() => {
    if (!enabled) {
      shown.current = false;
      setLoad({ status: 'idle' });
      return;
    }
    const keep = keepPrevious && shown.current;
    if (!keep) {
      shown.current = false;
      setLoad({ status: 'loading' });
    }
    void read(keep);
    return () => {
      latest.current++;
      inFlight.current?.abort();
    };
    // `url` stands for the endpoint and its input: the same URL is the same question.
  }, [url, enabled, read, keepPrevious]);

  useRefresh(enabled ? options.refreshMs : undefined, url, read);

  const set = useCallback((data: T) => {
    latest.current++;
    inFlight.current?.abort();
    shown.current = true;
    setLoad({ status: 'ready', data });
    setStaleBecause(null);
  }, []);

  // A change told live (a socket event), applied to what is shown; a read on its way still answers after it.
  const patch = useCallback((change: (current: T) => T) => {
    setLoad((current) => (current.status === 'ready' ? { status: 'ready', data: change(current.data) } : current));
  }, []);

  const reload = useCallback(() => read(), [read]);
  return { load, reload, set, patch, staleBecause };
}

/** Reads again every `refreshMs` while the page shows it (none when undefined); quiet, as a refresh's failure is. */
function useRefresh(refreshMs: number | undefined, url: string, read: (quiet: boolean) => Promise<unknown>): void {
  useEffect(() => {
    if (!refreshMs) return;
    const timer = setInterval(() => void read(true), refreshMs);
    return () => clearInterval(timer);
  }, [url, read, refreshMs]);
}
