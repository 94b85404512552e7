/**
 * Speed and time left of an upload, kept apart from the page so they can be tested: the speed is measured
 * over the last few seconds (a connection that slows down shows it soon), and the time left is said the way
 * a desktop file manager says it ("about 2 min left").
 */

/** Bytes sent by a moment (milliseconds, any clock). */
type Sample = { at: number; loaded: number };

/** Speed over the last `windowMs`; none before a second of progress is known. */
export function createSpeedMeter(windowMs = 5000) {
  const samples: Sample[] = [];
  return {
    add(at: number, loaded: number): void {
      samples.push({ at, loaded });
      // Keep one sample at or before the window's start, so the window is always covered.
      while (samples.length > 2 && (samples[1]?.at ?? at) <= at - windowMs) samples.shift();
    },
    /** Bytes per second, or null while less than a second of progress is known. */
    speed(): number | null {
      const first = samples[0];
      const last = samples[samples.length - 1];
      if (!first || !last || last.at - first.at < 1000) return null;
      return ((last.loaded - first.loaded) * 1000) / (last.at - first.at);
    },
  };
}

/** Seconds left at this speed, or null when it cannot be told (no speed yet, or nothing moving). */
export function secondsLeft(remainingBytes: number, bytesPerSecond: number | null): number | null {
  if (bytesPerSecond === null || !(bytesPerSecond > 0)) return null;
  return Math.max(0, remainingBytes) / bytesPerSecond;
}

/** "a few seconds left", "about 40 s left", "about 2 min left", "about 1 h 5 min left". */
export function formatTimeLeft(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return 'estimating time left…';
  if (seconds < 10) return 'a few seconds left';
  // Up to 50 s in tens; from there it is "about 1 min" (never "about 60 s").
  if (seconds <= 50) return `about ${Math.ceil(seconds / 10) * 10} s left`;
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return `about ${minutes} min left`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `about ${hours} h ${rest} min left` : `about ${hours} h left`;
}
