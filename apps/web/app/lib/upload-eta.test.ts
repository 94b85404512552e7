import { describe, expect, it } from 'vitest';
import { createSpeedMeter, formatTimeLeft, secondsLeft } from './upload-eta.ts';

describe('upload speed', () => {
  it('is unknown until a second of progress is known', () => {
    const meter = createSpeedMeter();
    expect(meter.speed()).toBeNull();
    meter.add(0, 0);
    meter.add(500, 50_000);
    expect(meter.speed()).toBeNull();
    meter.add(1000, 100_000);
    expect(meter.speed()).toBe(100_000);
  });

  it('follows the last seconds, so a connection that slows down shows it', () => {
    const meter = createSpeedMeter(5000);
    // Ten seconds at 1 MB/s, then five at 100 KB/s.
    for (let s = 0; s <= 10; s++) meter.add(s * 1000, s * 1_000_000);
    for (let s = 11; s <= 15; s++) meter.add(s * 1000, 10_000_000 + (s - 10) * 100_000);
    expect(meter.speed()).toBe(100_000);
  });
});

describe('time left', () => {
  it('is the bytes left at the current speed', () => {
    expect(secondsLeft(120_000_000, 1_000_000)).toBe(120);
    expect(secondsLeft(1000, null)).toBeNull();
    expect(secondsLeft(1000, 0)).toBeNull();
  });

  it('is said as a desktop file manager says it', () => {
    expect(formatTimeLeft(null)).toBe('estimating time left…');
    expect(formatTimeLeft(3)).toBe('a few seconds left');
    expect(formatTimeLeft(31)).toBe('about 40 s left');
    expect(formatTimeLeft(50)).toBe('about 50 s left');
    expect(formatTimeLeft(52)).toBe('about 1 min left');
    expect(formatTimeLeft(58)).toBe('about 1 min left');
    expect(formatTimeLeft(120)).toBe('about 2 min left');
    expect(formatTimeLeft(150)).toBe('about 3 min left');
    expect(formatTimeLeft(3600)).toBe('about 1 h left');
    expect(formatTimeLeft(3900)).toBe('about 1 h 5 min left');
    expect(formatTimeLeft(Infinity)).toBe('estimating time left…');
  });
});
