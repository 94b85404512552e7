import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { z } from 'zod';

/*
 * Which process is a game's, exactly: a pid with its kernel start time (a recycled pid has another), and the
 * game's own pid inside its cage as bwrap reports it (detached-process.ts keeps both in `process.json`).
 */

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), or null if it is gone. */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is the state; a zombie has exited already.
    if (fields[0] === 'Z') return null;
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** bwrap's --info-fd answer, as far as it is read: the game's pid on the node (never 0, 1 or a fraction). */
const bwrapInfo = z.object({ 'child-pid': z.number().int().gt(1) });

/** Reads bwrap's --info-fd answer: the game's pid on the node, or null when the cage ended before it ran. */
export async function childPidFrom(stream: Readable): Promise<number | null> {
  let text = '';
  // bwrap writes one JSON object; it may keep the descriptor open, so the answer is taken once it parses.
  for await (const chunk of stream) {
    text += String(chunk);
    let info: unknown;
    try {
      info = JSON.parse(text) as unknown;
    } catch {
      if (text.length > 64 * 1024) return null;
      continue;
    }
    const answer = bwrapInfo.safeParse(info);
    return answer.success ? answer.data['child-pid'] : null;
  }
  return null;
}
