/**
 * Creates an embedded (PGlite) database folder in a short-lived process of its own.
 *
 * Why a process: PGlite creates a database by running initdb in a second WebAssembly instance, and the
 * memory of that instance stays with the process that ran it after it is closed (about 470 MB, measured on
 * the API's first start: 940 MB resident against 467 MB when the same API opens the folder it made). Run
 * here, that memory goes back to the system when this process exits, and the API opens a finished folder.
 *
 * The folder is made under a temporary name beside its place and renamed into it once complete, so a
 * creation cut short (the machine stopped, the process killed) never leaves a half-made database where the
 * API would open it: the next start makes it again. Only where nothing is yet (the default `DATA_DIR/db`
 * of a first start); see `nothingAt`.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { apiRoot, runsBuilt } from '../install-root.ts';

const run = promisify(execFile);
const TEMP_PREFIX = '.creating-';

/** Whether `dir` holds a database PGlite can open (its version file is the last thing made). */
const holdsDatabase = (dir: string) => existsSync(path.join(dir, 'PG_VERSION'));

/** Whether process `pid` runs (a creation it began may still be going on). */
function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes the database folder `dir`, which must not exist, in a child process. Leftovers of an earlier
 * creation that was cut short (its process gone) are removed first; one still under way is not touched,
 * and this start is refused (two API processes on one embedded database would damage it anyway).
 */
export async function createPgliteFolder(dir: string): Promise<void> {
  const parent = path.dirname(dir);
  const prefix = `${path.basename(dir)}${TEMP_PREFIX}`;
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number(entry.slice(prefix.length));
    if (Number.isInteger(pid) && pid !== process.pid && runs(pid))
      throw new Error(`Another process (${pid}) is creating the embedded database in ${dir}; only one API process may use it.`);
    rmSync(path.join(parent, entry), { recursive: true, force: true });
  }
  const temp = path.join(parent, `${prefix}${process.pid}`);
  try {
    await run(process.execPath, [...childEntry(), temp], { timeout: 120_000 });
    renameSync(temp, dir);
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    const stderr = (err as { stderr?: unknown }).stderr;
    throw new Error(
      `The embedded database could not be created in ${dir}: ${typeof stderr === 'string' && stderr.trim() ? stderr.trim() : String(err)}`,
    );
  }
}

/**
 * How the child runs: the production build's own entry with plain node, or this module's TypeScript
 * through tsx (resolved here, so the child finds it whatever its working folder).
 */
function childEntry(): string[] {
  if (runsBuilt) return [path.join(apiRoot, 'dist', 'create-pglite-child.js')];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', tsx, path.join(apiRoot, 'src', 'db', 'create-pglite-child.ts')];
}

/** The child's part: initdb into the folder, then close so every file is written. */
export async function createHere(dir: string): Promise<void> {
  const client = await PGlite.create(dir);
  await client.close();
  if (!holdsDatabase(dir)) throw new Error('initdb finished without a PG_VERSION file.');
}

/**
 * Whether nothing is at `dir`: then a new database is made by createPgliteFolder. A folder (or a link to
 * one, or a mount point) an operator prepared is left to PGlite in the API's own process, as it keeps its
 * place, owner and mode that way; that first start keeps initdb's memory until the next one.
 */
export const nothingAt = (dir: string) => lstatSync(dir, { throwIfNoEntry: false }) === undefined;
