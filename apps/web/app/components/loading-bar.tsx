import { LOADING_BAR } from '@spawnpoint/contracts';
import { useEffect, useRef, useState } from 'react';
import { useNavigation } from 'react-router';

/** The 3 px page-loading indicator (throttle 200, duration 2000, hide 500, reset 400 ms). */
export function LoadingBar() {
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle';
  const [progress, setProgress] = useState(0);
  const [visible, setVisible] = useState(false);
  const timers = useRef<number[]>([]);

  useEffect(() => {
    const clear = () => {
      for (const t of timers.current) window.clearTimeout(t);
      timers.current = [];
    };
    clear();
    if (busy) {
      timers.current.push(
        window.setTimeout(() => {
          setVisible(true);
          setProgress(10);
          timers.current.push(window.setTimeout(() => setProgress(90), 20));
        }, LOADING_BAR.throttle),
      );
    } else {
      setProgress((p) => (p > 0 ? 100 : 0));
      timers.current.push(window.setTimeout(() => setVisible(false), LOADING_BAR.hideDelay));
      timers.current.push(window.setTimeout(() => setProgress(0), LOADING_BAR.hideDelay + LOADING_BAR.resetDelay));
    }
    return clear;
  }, [busy]);

  return (
    <div
      aria-hidden="true"
      className="fixed inset-x-0 top-0 z-50 pointer-events-none"
      style={{ height: LOADING_BAR.height, opacity: visible ? 1 : 0, transition: 'opacity 300ms' }}
    >
      <div
        className="h-full bg-brand-500"
        style={{
          width: `${progress}%`,
          transition: progress === 90 ? `width ${LOADING_BAR.duration}ms ease-out` : 'width 200ms ease-out',
        }}
      />
    </div>
  );
}
