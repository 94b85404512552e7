/**
 * Who is in the game, from the game's own console: its join and leave lines (`Steve joined the game`,
 * `Steve left the game`, as Java servers print them and our flying-squid launcher too) and the answer to
 * `list` (`There are 2 of a max of 10 players online: Steve, Alex`), which the agent sends when it adopts
 * a server an earlier agent started. Sleeping counts players from here, never from status pings.
 *
 * A line counts only when the message starts right after the log prefix (`[time] [thread/LEVEL]: `,
 * `[time LEVEL]: ` or flying-squid's `date, time [LEVEL]: `), so chat (`<Bob> Alex joined the game`) cannot fake a join. Game code (a plugin) can
 * still print such a line; that only keeps its own server awake, which its daily play time bounds.
 */
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
// flying-squid puts its date first (`January 1st 2025, 12:00:00 [INFO]: `), Java a bracketed time.
const PREFIX = String.raw`^[^[\]<]*(?:\[[^\][]*\]\s*)+:\s`;
const NAME = '([A-Za-z0-9_]{1,16})';
const JOINED = new RegExp(`${PREFIX}${NAME} joined the game\\s*$`);
const LEFT = new RegExp(`${PREFIX}${NAME} left the game\\s*$`);
const LIST = new RegExp(`${PREFIX}There are (\\d+) of a max(?: of)? \\d+ players online:?(.*)$`);
const MAX_TRACKED = 10_000;

export class PlayerCount {
  private names = new Set<string>();
  private partial = '';
  /** False after an adoption until the game's `list` answered: the count is not known. */
  private known = true;

  /** Feeds console output (any chunking). */
  write(text: string): void {
    const all = this.partial + text;
    const lines = all.split('\n');
    this.partial = (lines.pop() ?? '').slice(-1024);
    for (const raw of lines) this.line(raw.replace(ANSI, '').replace(/\r$/, ''));
  }

  /** A new process: nobody is in it yet. */
  reset(): void {
    this.names.clear();
    this.partial = '';
    this.known = true;
  }

  /** An adopted process: who is in it is unknown until its `list` answers. */
  unknown(): void {
    this.reset();
    this.known = false;
  }

  /** Players in the game, or undefined while unknown. */
  count(): number | undefined {
    return this.known ? this.names.size : undefined;
  }

  private line(line: string): void {
    let match = JOINED.exec(line);
    if (match) {
      if (this.names.size < MAX_TRACKED) this.names.add((match[1] as string).toLowerCase());
      return;
    }
    match = LEFT.exec(line);
    if (match) {
      this.names.delete((match[1] as string).toLowerCase());
      return;
    }
    match = LIST.exec(line);
    if (match) {
      const names = (match[2] ?? '')
        .split(',')
        .map((n) => n.trim().toLowerCase())
        .filter((n) => /^[a-z0-9_]{1,16}$/.test(n));
      this.names = new Set(names.slice(0, MAX_TRACKED));
      this.known = true;
    }
  }
}
