import { describe, expect, it } from 'vitest';
import { PlayerCount } from './player-count.ts';

describe('PlayerCount', () => {
  it("counts joins and leaves in the game's own lines, Java's and flying-squid's, across chunks", () => {
    const count = new PlayerCount();
    count.write('[12:00:01] [Server thread/INFO]: Steve joined the game\n[12:00:02 INFO]: Alex joi');
    expect(count.count()).toBe(1);
    count.write('ned the game\r\n');
    expect(count.count()).toBe(2);
    count.write('January 1st 2025, 12:00:03 [\x1b[32mINFO\x1b[39m]: Kai joined the game\n');
    expect(count.count()).toBe(3);
    count.write('[12:00:04] [Server thread/INFO]: steve left the game\n');
    count.write('January 1st 2025, 12:00:05 [INFO]: Kai left the game\n');
    expect(count.count()).toBe(1);
    count.reset();
    expect(count.count()).toBe(0);
  });

  it('is not fooled by chat or by text in the middle of a line', () => {
    const count = new PlayerCount();
    count.write('[12:00:01] [Server thread/INFO]: <Bob> Alex joined the game\n');
    count.write('January 1st 2025, 12:00:03 [INFO]: <Bob> x]: Alex joined the game\n');
    count.write('[12:00:01] [Server thread/INFO]: Some Body joined the game\n');
    count.write('Alex joined the game\n');
    expect(count.count()).toBe(0);
  });

  it("is unknown after an adoption until the game's list answers", () => {
    const count = new PlayerCount();
    count.unknown();
    expect(count.count()).toBeUndefined();
    count.write('January 1st 2025, 12:00:03 [INFO]: There are 2 of a max of 10 players online: Steve, Alex\n');
    expect(count.count()).toBe(2);
    count.write('[12:00:04] [Server thread/INFO]: Steve left the game\n');
    expect(count.count()).toBe(1);
    count.unknown();
    count.write('[12:00:05] [Server thread/INFO]: There are 0 of a max of 20 players online:\n');
    expect(count.count()).toBe(0);
  });
});
