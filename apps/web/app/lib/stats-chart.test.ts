import { STATS_HISTORY_MS, type StatsSample } from '@spawnpoint/contracts';
import { describe, expect, it } from 'vitest';
import { MIN_WINDOW_MS, formatMemory, formatPlayers, linePoints, mergeSamples, scaleTop, timeWindow, valueTicks } from './stats-chart.ts';

const sample = (at: number, cpu = 10): StatsSample => ({ at, cpu, memory: 1, players: 0 });

describe('stats chart', () => {
  it('merges a history sent again after a reconnect without doubling points, oldest first', () => {
    const page = [sample(1000), sample(3000), sample(5000)];
    const history = [sample(3000), sample(5000), sample(7000)];
    expect(mergeSamples(page, history).map((s) => s.at)).toEqual([1000, 3000, 5000, 7000]);
    expect(mergeSamples(history, [sample(2000)]).map((s) => s.at)).toEqual([2000, 3000, 5000, 7000]);
  });

  it('keeps only the 10 minutes before the newest sample', () => {
    const now = 100 * STATS_HISTORY_MS;
    const merged = mergeSamples([sample(now - STATS_HISTORY_MS - 1), sample(now - STATS_HISTORY_MS)], [sample(now)]);
    expect(merged.map((s) => s.at)).toEqual([now - STATS_HISTORY_MS, now]);
  });

  it('labels memory in MB below a gigabyte and in GB above, with 0, half and the plan’s limit', () => {
    const top = scaleTop(2048 * 1024 * 1024, [300 * 1024 * 1024]);
    expect(valueTicks(top).map(formatMemory)).toEqual(['0 MB', '1 GB', '2 GB']);
    expect(valueTicks(scaleTop(1024 * 1024 * 1024, [])).map(formatMemory)).toEqual(['0 MB', '512 MB', '1 GB']);
    expect(formatMemory(1.5 * 1024 * 1024 * 1024)).toBe('1.5 GB');
  });

  it('labels players in whole players only', () => {
    expect(valueTicks(scaleTop(10, [2])).map(formatPlayers)).toEqual(['0', '5', '10']);
    expect(valueTicks(scaleTop(5, [])).map(formatPlayers)).toEqual(['0', '', '5']);
  });

  it('spans from the oldest sample to the newest: at least a minute, at most 10 minutes', () => {
    const to = 50 * STATS_HISTORY_MS;
    expect(timeWindow([sample(to - 4 * 60_000), sample(to)], 0)).toEqual({ from: to - 4 * 60_000, to });
    expect(timeWindow([sample(to - 10_000), sample(to)], 0)).toEqual({ from: to - MIN_WINDOW_MS, to });
    expect(timeWindow([sample(to - 2 * STATS_HISTORY_MS), sample(to)], 0)).toEqual({ from: to - STATS_HISTORY_MS, to });
    expect(timeWindow([], to)).toEqual({ from: to - MIN_WINDOW_MS, to });
  });

  it('draws the window across the width, newest at the right edge, values capped at the top', () => {
    const to = 50 * STATS_HISTORY_MS;
    const window = { from: to - STATS_HISTORY_MS, to };
    const points = linePoints(
      [
        { at: to - STATS_HISTORY_MS / 2, value: 50 },
        { at: to, value: 150 },
      ],
      window,
      100,
      200,
      100,
    );
    expect(points).toBe('100.00,50.00 200.00,0.00');
  });
});
