import { STATS_HISTORY_MS, STATS_HISTORY_SAMPLES_MAX, type ServerStats, type StatsSample } from '@spawnpoint/contracts';

/**
 * The last 10 minutes of one server's stats for the overview's charts: a ring buffer of a fixed number of
 * slots (STATS_HISTORY_SAMPLES_MAX, 10 minutes at the agent's one sample per 2 s), so a server's memory
 * never grows however often its node reports. Samples older than STATS_HISTORY_MS are left out when read
 * (and overwritten as new ones arrive). Only what the charts draw is kept: no player names.
 */
export class StatsRing {
  private slots: (StatsSample | undefined)[] = new Array<StatsSample | undefined>(STATS_HISTORY_SAMPLES_MAX);
  private next = 0;
  private size = 0;

  push(stats: ServerStats, at: number): StatsSample {
    const sample: StatsSample = { at, cpu: stats.cpu, memory: stats.memory, players: stats.players.online };
    this.slots[this.next] = sample;
    this.next = (this.next + 1) % this.slots.length;
    this.size = Math.min(this.size + 1, this.slots.length);
    return sample;
  }

  /** Oldest first, those of the last STATS_HISTORY_MS before `now`. */
  read(now: number): StatsSample[] {
    const out: StatsSample[] = [];
    const start = (this.next - this.size + this.slots.length) % this.slots.length;
    for (let i = 0; i < this.size; i++) {
      const sample = this.slots[(start + i) % this.slots.length] as StatsSample;
      if (sample.at >= now - STATS_HISTORY_MS) out.push(sample);
    }
    return out;
  }

  get length(): number {
    return this.size;
  }
}

/** Each running server's latest figures and its ring of the last minutes (ServerHub keeps one). */
export class StatsBook {
  private readonly latestOf = new Map<string, ServerStats>();
  private readonly rings = new Map<string, StatsRing>();

  record(serverId: string, stats: ServerStats, at: number): void {
    this.latestOf.set(serverId, stats);
    let ring = this.rings.get(serverId);
    if (!ring) this.rings.set(serverId, (ring = new StatsRing()));
    ring.push(stats, at);
  }

  latest(serverId: string): ServerStats | null {
    return this.latestOf.get(serverId) ?? null;
  }

  /** The samples of the last STATS_HISTORY_MS, oldest first (none for a server that is not running). */
  history(serverId: string, now: number): StatsSample[] {
    return this.rings.get(serverId)?.read(now) ?? [];
  }

  /** A stopped server has no live figures; its charts start again with its next run. */
  clear(serverId: string): void {
    this.latestOf.delete(serverId);
    this.rings.delete(serverId);
  }

  clearAll(): void {
    this.latestOf.clear();
    this.rings.clear();
  }
}
