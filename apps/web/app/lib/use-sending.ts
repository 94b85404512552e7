import { useCallback, useRef, useState } from 'react';

/**
 * One send at a time (a double click on "Create backup" once sent twice and the second got an error toast;
 * docs/guide.md, "Buttons that send disable themselves until the answer"). `send(work)` runs `work` unless
 * an earlier one is still awaited; when `work` returns a promise, `sending` is true until it settles (for
 * the button: disabled and spinning). The ref is what refuses the second call, since a second click can
 * come before React has rendered the first `sending`. A refused call resolves to undefined and does
 * nothing.
 */
export function useSending() {
  const [sending, setSending] = useState(false);
  const inFlight = useRef(false);
  const send = useCallback(<T>(work: () => T | Promise<T>): Promise<T | undefined> => {
    if (inFlight.current) return Promise.resolve(undefined);
    let result: T | Promise<T>;
    try {
      result = work();
    } catch (error) {
      return Promise.reject(error);
    }
    // Nothing to wait for (a click that only opens a dialog): the button stays as it is.
    if (!isPromise(result)) return Promise.resolve(result);
    inFlight.current = true;
    setSending(true);
    return result.finally(() => {
      inFlight.current = false;
      setSending(false);
    });
  }, []);
  return { sending, send };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
