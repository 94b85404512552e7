import { describe, expect, it } from 'vitest';
import { OutputGuard } from './output-guard.ts';

const lines = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `line ${from + i}`).join('\n') + '\n';

describe('OutputGuard', () => {
  it('passes a burst up to its size whole, then keeps only what the bucket allows and says how many it skipped', () => {
    const guard = new OutputGuard(1, 5);
    const written: string[] = [];
    const notices: string[] = [];
    const write = (text: string) => written.push(text);
    const notice = (message: string) => notices.push(message);

    guard.pass(lines(3), write, notice);
    guard.pass(lines(4, 3), write, notice);
    expect(written.join('').trimEnd().split('\n')).toEqual(['line 0', 'line 1', 'line 2', 'line 3', 'line 4']);
    expect(notices).toEqual([]);

    // The bucket refills at 1 line/s: a line written later passes, with the count of the two skipped.
    const later = Date.now() + 2000;
    const realNow = Date.now;
    Date.now = () => later;
    try {
      guard.pass(lines(1, 7), write, notice);
    } finally {
      Date.now = realNow;
    }
    expect(notices).toEqual(['2 console lines were skipped because the server printed too fast.']);
    expect(written.at(-1)).toBe('line 7\n');
  });
});
