import { STATS_HISTORY_MS, type StatsSample } from '@spawnpoint/contracts';

/** At most this many samples are kept by the overview (the API's 10 minutes at one per 2 s, with room). */
const SAMPLES_MAX = 400;

/**
 * The overview's samples after the API's history (on subscribing) or a live sample: one per time, oldest
 * first, only the last 10 minutes before the newest. A history that arrives again after a reconnect
 * merges with what the page already has instead of doubling it.
 */
export function mergeSamples(current: readonly StatsSample[], incoming: readonly StatsSample[]): StatsSample[] {
  const byTime = new Map<number, StatsSample>();
  for (const sample of current) byTime.set(sample.at, sample);
  for (const sample of incoming) byTime.set(sample.at, sample);
  const sorted = [...byTime.values()].sort((a, b) => a.at - b.at);
  const newest = sorted[sorted.length - 1]?.at ?? 0;
  return sorted.filter((s) => s.at >= newest - STATS_HISTORY_MS).slice(-SAMPLES_MAX);
}

/** The top of a chart's scale: the limit (plan memory, player slots, 100 %), or higher if a value passes it. */
export function scaleTop(limit: number, values: readonly number[]): number {
  return Math.max(limit, ...values, 1);
}

/** Three labelled lines of the vertical axis: 0, half and the top. */
export function valueTicks(top: number): number[] {
  return [0, top / 2, top];
}

/** Memory on an axis: MB below 1 GB, else GB (1024-based, as the plan's memory is given). */
export function formatMemory(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb < 1024) return `${Math.round(mb)} MB`;
  const gb = mb / 1024;
  return `${gb.toFixed(gb < 10 && gb % 1 !== 0 ? 1 : 0)} GB`;
}

/** A percentage on an axis or beside the label. */
export const formatPercent = (value: number): string => `${Math.round(value)} %`;

/** Players on an axis: whole numbers only (the middle line of 5 slots, 2.5, gets no label). */
export function formatPlayers(value: number): string {
  return Number.isInteger(value) ? `${value}` : '';
}

/** Clock time of a sample in the browser's time zone: hours and minutes, and seconds when asked. */
export function clockTime(at: number, seconds = false): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}) });
}

/** The shortest time a chart spans, so the first samples of a run do not stretch across the whole width. */
export const MIN_WINDOW_MS = 60_000;

/**
 * The time a chart spans: from its oldest sample (at least a minute back, at most 10 minutes) to its newest
 * (or now, before any), so a run of two minutes fills the chart rather than a sliver at its right edge.
 */
export function timeWindow(samples: readonly StatsSample[], now: number): { from: number; to: number } {
  const to = samples[samples.length - 1]?.at ?? now;
  const oldest = samples[0]?.at ?? to;
  return { from: Math.max(to - STATS_HISTORY_MS, Math.min(oldest, to - MIN_WINDOW_MS)), to };
}

/** The polyline of a series in a box of `width` × `height`: time across the window, value up from the bottom. */
export function linePoints(
  points: readonly { at: number; value: number }[],
  window: { from: number; to: number },
  top: number,
  width: number,
  height: number,
): string {
  const span = Math.max(window.to - window.from, 1);
  return points
    .map(({ at, value }) => {
      const x = ((at - window.from) / span) * width;
      const y = height - (Math.min(value, top) / top) * height;
      return `${x.toFixed(2)},${y.toFixed(2)}`;
    })
    .join(' ');
}
