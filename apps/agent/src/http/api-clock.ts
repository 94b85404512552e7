import { apiClockEvent } from '@spawnpoint/contracts';

/** Beyond this, the node's clock is said to be off in its log (links still work: they are checked in the API's time). */
const TOLERATED_MS = 30_000;

/**
 * The control plane's time as this node reckons it: its own clock plus the offset the API's `api:clock`
 * showed when the node last connected. The expiry of the download links the API signs is checked against
 * it, so a node whose clock is minutes off neither refuses fresh links nor accepts stale ones.
 */
export class ApiClock {
  private offsetMs = 0;

  constructor(
    private readonly warn: (offsetMs: number) => void,
    private readonly local: () => number = () => Date.now(),
  ) {}

  now(): number {
    return this.local() + this.offsetMs;
  }

  /** The API's `api:clock` event (anything else is ignored; the offset stays what it was). */
  learn(payload: unknown): void {
    const event = apiClockEvent.safeParse(payload);
    if (!event.success) return;
    this.offsetMs = event.data.now - this.local();
    if (Math.abs(this.offsetMs) > TOLERATED_MS) this.warn(this.offsetMs);
  }
}
