import { useLiveStatus } from '../lib/use-live-status.ts';

/** Says so while the live connection is lost, so nobody trusts a frozen "Online" or frozen charts. */
export function ConnectionBanner() {
  const status = useLiveStatus();
  if (status !== 'lost') return null;
  return (
    <div role="status" className="border-b border-amber-300 bg-amber-50 px-4 py-2 text-center text-sm text-amber-900">
      <strong>Connection lost.</strong> Reconnecting… Live values on this page are the last ones received and may be out of date.
    </div>
  );
}
