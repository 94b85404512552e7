/** A small live chart: the last values as a line, the latest printed beside the label. */
export function Sparkline({ label, values, max, format }: { label: string; values: number[]; max: number; format: (v: number) => string }) {
  const width = 240;
  const height = 56;
  const top = Math.max(max, ...values, 1);
  const points = values.map((v, i) => `${(i / Math.max(values.length - 1, 1)) * width},${height - (v / top) * (height - 4) - 2}`).join(' ');
  const latest = values[values.length - 1];
  return (
    <figure className="rounded-xl border border-slate-200 bg-white p-4">
      <figcaption className="flex items-baseline justify-between text-sm">
        <span className="font-medium text-slate-600">{label}</span>
        <span className="font-semibold tabular-nums text-slate-900" data-testid={`stat-${label.toLowerCase()}`}>
          {latest === undefined ? '—' : format(latest)}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        className="mt-2 h-14 w-full"
        role="img"
        aria-label={`${label} over the last minute`}
        preserveAspectRatio="none"
      >
        {values.length > 1 ? (
          <polyline points={points} fill="none" stroke="var(--color-brand-600)" strokeWidth="2" vectorEffect="non-scaling-stroke" />
        ) : null}
      </svg>
    </figure>
  );
}
