/**
 * The console's output guard (as Wings does, with more room): a token bucket of lines. A server may print
 * 25,000 lines/s for as long as it likes and catch up in bursts of 20,000 after a pause; beyond that lines
 * are dropped with one notice once it calms down, so a runaway server cannot flood the node or the browsers.
 */
export const LINES_PER_SECOND = 25_000;
export const LINES_BURST = 20_000;

export class OutputGuard {
  private tokens: number;
  private refilledAt = 0;
  private dropped = 0;

  constructor(
    private readonly perSecond = LINES_PER_SECOND,
    private readonly burst = LINES_BURST,
  ) {
    this.tokens = burst;
  }

  /** Hands `write` what the bucket allows of `text` (whole lines), and `notice` how many were skipped before. */
  pass(text: string, write: (text: string) => void, notice: (message: string) => void): void {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    const count = text.split('\n').length - 1;
    if (count <= this.tokens) {
      this.tokens -= count;
      if (this.dropped) {
        notice(`${this.dropped} console lines were skipped because the server printed too fast.`);
        this.dropped = 0;
      }
      write(text);
      return;
    }
    // Keep what the bucket allows, drop the rest.
    const room = Math.floor(this.tokens);
    this.tokens -= room;
    this.dropped += count - room;
    if (room > 0) write(text.split('\n').slice(0, room).join('\n') + '\n');
  }
}
