import { CONSOLE_HISTORY_LINES } from '@spawnpoint/contracts';

// Readline prompt and cursor moves flying-squid writes even when stdout is not a terminal.
// eslint-disable-next-line no-control-regex -- matching the escape sequence is the point
const NOISE = /\x1b\[\d*G|^> /g;
const MAX_LINE = 4096;

/** Splits a byte stream into lines and keeps the last 150 for new subscribers. */
export class ConsoleBuffer {
  private history: string[] = [];
  private partial = '';

  constructor(private onLines: (lines: string[]) => void) {}

  write(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString('utf8');
    const parts = text.split(/\r?\n/);
    this.partial = (parts.pop() ?? '').slice(-MAX_LINE);
    const lines = parts.map((l) => l.replace(NOISE, '').slice(0, MAX_LINE)).filter((l) => l.length > 0);
    if (lines.length) this.push(lines);
  }

  /** Lines from us rather than the game, marked so the console shows where they came from. */
  notice(message: string): void {
    this.push([`\x1b[33m[Spawnpoint]\x1b[0m ${message}`]);
  }

  lines(): string[] {
    return [...this.history];
  }

  private watchers = new Set<(lines: string[]) => void>();

  /** Calls `fn` with every line written from now on; returns the way to stop. */
  watch(fn: (lines: string[]) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  private push(lines: string[]): void {
    for (const watcher of this.watchers) watcher(lines);
    this.history.push(...lines);
    if (this.history.length > CONSOLE_HISTORY_LINES) this.history.splice(0, this.history.length - CONSOLE_HISTORY_LINES);
    this.onLines(lines);
  }
}
