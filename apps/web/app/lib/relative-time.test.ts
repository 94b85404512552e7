import { describe, expect, it } from 'vitest';
import { relativeTime } from './relative-time.ts';

describe('relative times', () => {
  const now = Date.parse('2026-05-10T12:00:00Z');
  const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();

  it('says how long ago, in the largest whole unit', () => {
    expect(relativeTime(ago(10), now)).toBe('just now');
    expect(relativeTime(ago(50), now)).toBe('1 minute ago');
    expect(relativeTime(ago(5 * 60), now)).toBe('5 minutes ago');
    expect(relativeTime(ago(3 * 3600 + 59), now)).toBe('3 hours ago');
    expect(relativeTime(ago(86_400), now)).toBe('yesterday');
    expect(relativeTime(ago(15 * 86_400), now)).toBe('2 weeks ago');
    expect(relativeTime(ago(400 * 86_400), now)).toBe('last year');
  });
});
