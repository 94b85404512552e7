import { AGENT_CONSOLE_BATCH_BYTES } from '@spawnpoint/contracts';
import { describe, expect, it } from 'vitest';
import { ConsoleOutbox, firstBatch, fitLine } from './console-outbox.ts';
import { until } from '../../../../test-support/until.ts';

const encoded = (lines: string[]) => Buffer.byteLength(JSON.stringify(lines));

describe('console outbox', () => {
  it('sizes batches in encoded bytes: escape codes and CJK count for what they cost', () => {
    const line = `${'\x1b[31m紅'.repeat(40)} flood`;
    const lines = Array.from({ length: 2000 }, () => line);
    const batch = firstBatch(lines);
    expect(batch.length).toBeGreaterThan(0);
    expect(encoded(batch)).toBeLessThanOrEqual(AGENT_CONSOLE_BATCH_BYTES);
    expect(encoded(lines.slice(0, batch.length + 1))).toBeGreaterThan(AGENT_CONSOLE_BATCH_BYTES);
  });

  it('cuts a line too long for one batch into pieces that fit and keep every character', () => {
    const long = '\x1b'.repeat(20_000) + '世界';
    const pieces = fitLine(long);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(encoded([piece])).toBeLessThanOrEqual(AGENT_CONSOLE_BATCH_BYTES);
    expect(pieces.join('')).toBe(long);
  });

  it('keeps a batch that was not acknowledged and sends it again, in order, before newer lines', async () => {
    const delivered: string[] = [];
    let fail = true;
    const outbox = new ConsoleOutbox(
      async (_serverId, lines) => {
        if (fail) {
          fail = false;
          return false; // the socket dropped before the acknowledgement
        }
        delivered.push(...lines);
        return true;
      },
      () => true,
    );
    outbox.add('s1', ['one', 'two']);
    outbox.flush();
    outbox.add('s1', ['three']);
    outbox.flush();
    await until(
      () => delivered.length,
      (n) => n === 3,
    );
    expect(delivered).toEqual(['one', 'two', 'three']);
  });

  it('holds lines while it cannot send and keeps at most 20,000 with a notice of what was skipped', () => {
    let connected = false;
    const sent: string[][] = [];
    const outbox = new ConsoleOutbox(
      async (_id, lines) => {
        sent.push(lines);
        return true;
      },
      () => connected,
    );
    outbox.add(
      's1',
      Array.from({ length: 25_000 }, (_, i) => `line ${i}`),
    );
    outbox.flush();
    expect(sent).toEqual([]);
    expect(outbox.waiting).toBe(20_000);
    connected = true;
    outbox.flush();
    expect(sent[0]?.[0]).toContain('5001 console lines were skipped');
  });
});
