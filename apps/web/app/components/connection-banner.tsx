import { SOCKETS_PER_SESSION_MAX } from '@spawnpoint/contracts';
import { useLiveStatus } from '../lib/use-live-status.ts';

const bannerClass = 'border-b border-amber-300 bg-amber-50 px-4 py-2 text-center text-sm text-amber-900';

/** Says so while the live connection is lost or refused, so nobody trusts a frozen "Online" or frozen charts. */
export function ConnectionBanner() {
  const status = useLiveStatus();
  if (status === 'crowded')
    return (
      <div role="status" className={bannerClass}>
        <strong>Live updates are paused in this tab.</strong> {SOCKETS_PER_SESSION_MAX} tabs or windows of this sign-in are live already:
        close one and this tab catches up by itself within 15 seconds.
      </div>
    );
  if (status !== 'lost') return null;
  return (
    <div role="status" className={bannerClass}>
      <strong>Connection lost.</strong> Reconnecting… Live values on this page are the last ones received and may be out of date.
    </div>
  );
}
