import type { StatsSample } from '@spawnpoint/contracts';
import { clockTime, linePoints, scaleTop, timeWindow, valueTicks } from '../lib/stats-chart.ts';

const WIDTH = 300;
const HEIGHT = 100;

/**
 * One of the overview's charts: the last 10 minutes of a figure with a labelled vertical axis (`formatTick`
 * gives the unit) and clock times along the bottom, the latest value beside the title. While the history is
 * on its way it shows a skeleton in place of the plot.
 */
export function StatsChart({
  label,
  samples,
  pick,
  limit,
  formatTick,
  formatLatest,
  latest,
  loading,
  now,
}: {
  label: string;
  samples: readonly StatsSample[];
  pick: (sample: StatsSample) => number;
  /** The top of the scale unless a value passes it: 100 %, the plan's memory, the player slots. */
  limit: number;
  formatTick: (value: number) => string;
  formatLatest: (value: number) => string;
  /** The figure beside the title (the latest live value, or the one the page loaded with). */
  latest: number | undefined;
  loading: boolean;
  now: number;
}) {
  const values = samples.map(pick);
  const top = scaleTop(limit, values);
  const window = timeWindow(samples, now);
  const points = linePoints(
    samples.map((s, i) => ({ at: s.at, value: values[i] as number })),
    window,
    top,
    WIDTH,
    HEIGHT,
  );
  const ticks = valueTicks(top);
  const seconds = window.to - window.from <= 5 * 60_000;
  const slug = label.toLowerCase();
  const oldest = samples[0];
  const summary =
    oldest && latest !== undefined
      ? `${label} over the last 10 minutes: ${samples.length} samples since ${clockTime(oldest.at, true)}, now ${formatLatest(latest)}.`
      : `${label}: no samples yet.`;
  return (
    <figure
      className="min-w-0 rounded-xl border border-slate-200 bg-white p-4"
      data-testid={`chart-${slug}`}
      aria-busy={loading || undefined}
    >
      <figcaption className="flex items-baseline justify-between gap-2 text-sm">
        <span className="font-medium text-slate-700">{label}</span>
        <span className="font-semibold tabular-nums text-slate-900" data-testid={`stat-${slug}`}>
          {latest === undefined ? '—' : formatLatest(latest)}
        </span>
      </figcaption>
      <div className="mt-3 grid grid-cols-[auto_minmax(0,1fr)] gap-x-2">
        {/* The vertical axis: top, middle and zero, aligned with the plot's lines. */}
        <div className="flex h-24 flex-col justify-between text-right text-xs tabular-nums text-slate-600" aria-hidden="true">
          {[...ticks].reverse().map((tick) => (
            <span key={tick} className="-my-2 leading-4">
              {formatTick(tick)}
            </span>
          ))}
        </div>
        {loading ? (
          <div className="h-24 rounded-md bg-slate-100 motion-safe:animate-pulse" data-testid="chart-skeleton">
            <span className="sr-only">Loading the last 10 minutes…</span>
          </div>
        ) : (
          <ChartPlot samples={samples} points={points} ticks={ticks} top={top} summary={summary} />
        )}
        {/* Clock times under the plot: where the window starts and the newest sample (with seconds over a short run). */}
        <div className="col-start-2 mt-1 flex justify-between gap-2 text-xs tabular-nums text-slate-600" aria-hidden="true">
          <span>{clockTime(window.from, seconds)}</span>
          <span>{clockTime(window.to, seconds)}</span>
        </div>
      </div>
    </figure>
  );
}

/** The plot itself: the scale's lines and the samples' line, described for screen readers by `summary`. */
function ChartPlot({
  samples,
  points,
  ticks,
  top,
  summary,
}: {
  samples: readonly StatsSample[];
  points: string;
  ticks: readonly number[];
  top: number;
  summary: string;
}) {
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      preserveAspectRatio="none"
      className="h-24 w-full overflow-visible"
      role="img"
      aria-label={summary}
      data-samples={samples.length}
      data-oldest={samples[0]?.at}
    >
      {ticks.map((tick) => {
        const y = HEIGHT - (tick / top) * HEIGHT;
        return <line key={tick} x1={0} x2={WIDTH} y1={y} y2={y} stroke="#e2e8f0" strokeWidth="1" vectorEffect="non-scaling-stroke" />;
      })}
      {samples.length > 1 ? (
        <polyline
          points={points}
          fill="none"
          stroke="var(--color-brand-600)"
          strokeWidth="2"
          strokeLinejoin="round"
          vectorEffect="non-scaling-stroke"
        />
      ) : null}
    </svg>
  );
}
