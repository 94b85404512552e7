import { StringDecoder } from 'node:string_decoder';
import type { ConsoleBuffer } from './console-buffer.ts';
import { OutputGuard } from './output-guard.ts';
import { PlayerCount } from './player-count.ts';

/**
 * A game's output as it comes: decoded across reads (a multi-byte character split between two reads
 * survives), players counted by their join and leave lines, the ready line seen across chunks, and passed
 * to the console through the output guard.
 */
export class GameOutput {
  readonly inGame = new PlayerCount();
  private decoder = new StringDecoder('utf8');
  // The end of the last output chunk without its newline, so the ready line is seen across chunks.
  private partialLine = '';
  private readonly guard = new OutputGuard();

  constructor(
    private readonly console: ConsoleBuffer,
    private readonly readyPattern: RegExp,
  ) {}

  /** A new process is watched: decoding and counting start afresh. */
  attached(): void {
    this.decoder = new StringDecoder('utf8');
    this.inGame.reset();
  }

  /** A start begins: its ready line is looked for from here. */
  starting(): void {
    this.partialLine = '';
  }

  /**
   * Reads a chunk. `inGame`: the players in the game when a join or leave changed it (else undefined);
   * `ready`: the ready line was seen (looked for only while `starting`). Pass the text on with `pass`.
   */
  read(chunk: Buffer, starting: boolean): { text: string; inGame: number | undefined; ready: boolean } {
    const text = this.decoder.write(chunk);
    const before = this.inGame.count();
    this.inGame.write(text);
    const after = this.inGame.count();
    let ready = false;
    if (starting) {
      const seen = this.partialLine + text;
      ready = this.readyPattern.test(seen);
      this.partialLine = seen.slice(seen.lastIndexOf('\n') + 1).slice(-512);
    }
    return { text, inGame: after !== before ? after : undefined, ready };
  }

  /** Hands output to the console, within the guard's limits. */
  pass(text: string): void {
    this.guard.pass(
      text,
      (allowed) => this.console.write(allowed),
      (message) => this.console.notice(message),
    );
  }
}
