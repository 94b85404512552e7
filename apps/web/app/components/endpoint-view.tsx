import type { ReactNode } from 'react';
import type { EndpointLoad } from '../lib/use-endpoint.ts';

/**
 * What a page shows for a read (lib/use-endpoint.ts) in the card its content goes in: a status line while it
 * loads, the failure as an alert, and `children` once the answer is there. One place, so every page says
 * the same things the same way.
 */
export function EndpointView<T>({
  load,
  loading,
  className,
  children,
}: {
  load: EndpointLoad<T>;
  /** "Loading the shop…" */
  loading: string;
  /** The card the status lines sit in. */
  className: string;
  children: (data: T) => ReactNode;
}) {
  if (load.status === 'ready') return <>{children(load.data)}</>;
  if (load.status === 'failed')
    return (
      <p className={`${className} text-sm text-red-700`} role="alert">
        {load.message}
      </p>
    );
  return (
    <p className={`${className} text-sm text-slate-600`} role="status">
      {loading}
    </p>
  );
}
