import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A plugin's own data in the server folder (`plugins/<id>/<file>`), read at start and written whole on
 * every change (a temporary file renamed into place, so a crash leaves the old data). It is the game's
 * own folder, so the file is taken as untrusted: anything unreadable starts empty, with a console line.
 */
export function pluginData<T>(id: string, file: string, check: (value: unknown) => T | null, log: (line: string) => void) {
  const folder = path.join('plugins', id);
  const target = path.join(folder, file);
  let value: T | null = null;
  try {
    value = check(JSON.parse(readFileSync(target, 'utf8')) as unknown);
    if (value === null) log(`${target} was not understood and was ignored.`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`${target} could not be read and was ignored.`);
  }
  return {
    value,
    save(next: T): void {
      try {
        mkdirSync(folder, { recursive: true });
        const temp = `${target}.tmp`;
        writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`);
        renameSync(temp, target);
      } catch (err) {
        log(`${target} could not be saved: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}
