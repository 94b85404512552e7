/**
 * What an upload of many files (a picked or dropped folder tree) does, kept apart from the page so it can
 * be tested: the folders it needs, each asked for once, and the one toast that sums up what happened.
 */

/** Every folder the relative paths need, parents before children, each once ("a/b/c.txt" → "a", "a/b"). */
export function foldersOf(paths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    const parts = path.split('/').filter(Boolean).slice(0, -1);
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  return [...folders];
}

/** The folder of `folders` that holds `path`, if any (to skip files whose folder could not be made). */
export function failedAncestor(path: string, failedFolders: ReadonlySet<string>): string | undefined {
  const parts = path.split('/').filter(Boolean).slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const folder = parts.slice(0, i).join('/');
    if (failedFolders.has(folder)) return folder;
  }
  return undefined;
}

/** What to do with a file whose name is taken in the folder it goes into, as a desktop file manager asks. */
export type ConflictChoice = 'replace' | 'keep-both' | 'skip';

/** Endings kept together when a number is put before the extension ("world (1).tar.gz", not "world.tar (1).gz"). */
const DOUBLE_EXTENSIONS = /\.tar\.(gz|bz2|xz|zst)$/i;

/**
 * The name "Keep both" uploads under: the first of "name (1).ext", "name (2).ext", … not in `taken`.
 * A name that starts with its only dot (".env") has no extension; "pack.tar.gz" keeps ".tar.gz" together.
 */
export function keepBothName(name: string, taken: ReadonlySet<string>): string {
  const double = DOUBLE_EXTENSIONS.exec(name);
  const dot = double ? double.index : name.lastIndexOf('.');
  const cut = dot > 0 ? dot : name.length;
  const stem = name.slice(0, cut);
  const extension = name.slice(cut);
  for (let n = 1; ; n++) {
    const candidate = `${stem} (${n})${extension}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The relative path with its last part renamed ("pack/a.txt", "a (1).txt" → "pack/a (1).txt"). */
export function withName(path: string, name: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? name : `${path.slice(0, slash + 1)}${name}`;
}

/** The folder of a relative path ("" for the folder the upload goes into) and its last part. */
export function splitPath(path: string): { folder: string; name: string } {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? { folder: '', name: path } : { folder: path.slice(0, slash), name: path.slice(slash + 1) };
}

export interface UploadOutcome {
  /** Files sent under a name that was free (including "Keep both" under a new name). */
  uploaded: number;
  /** Files sent over one of the same name ("Replace"). */
  replaced: number;
  /** Files not sent because their name was taken ("Skip"). */
  skipped: number;
  foldersCreated: number;
  /** Files and folders that failed, with the first reason worth showing. */
  failures: { path: string; message: string }[];
  /** Files not sent because the upload stopped (the disk limit was reached, or it was cancelled). */
  notSent: number;
  /** Set when the user cancelled the upload, with the file being sent then (none of it is kept). */
  cancelled?: { file?: string };
}

/** An outcome with nothing done yet. */
export const emptyOutcome = (): UploadOutcome => ({ uploaded: 0, replaced: 0, skipped: 0, foldersCreated: 0, failures: [], notSent: 0 });

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * One toast for the whole upload: counts of what was uploaded, replaced, skipped, created and refused, and
 * the first reason; a cancelled upload says so and names the file of which nothing was kept.
 */
export function uploadSummary(outcome: UploadOutcome): { type: 'success' | 'info' | 'warning'; title: string; message: string } {
  // The first count carries the noun: "3 files uploaded, 1 replaced", "2 files replaced", "1 file skipped".
  const files = (
    [
      [outcome.uploaded, 'uploaded'],
      [outcome.replaced, 'replaced'],
      [outcome.skipped, 'skipped'],
    ] as const
  ).filter(([n]) => n > 0);
  const [first = [0, 'uploaded'] as const, ...rest] = files;
  const parts = [`${count(first[0], 'file')} ${first[1]}`, ...rest.map(([n, what]) => `${n} ${what}`)];
  if (outcome.foldersCreated) parts.push(`${count(outcome.foldersCreated, 'folder')} created`);
  if (outcome.failures.length) parts.push(`${outcome.failures.length} failed`);
  if (outcome.notSent) parts.push(`${outcome.notSent} not sent`);
  const failure = outcome.failures[0];
  const counts = `${parts.join(', ')}.`;
  if (outcome.cancelled) {
    const file = outcome.cancelled.file;
    return { type: 'info', title: 'Upload cancelled', message: file ? `${counts} Nothing of ${file} was kept.` : counts };
  }
  const clean = !outcome.failures.length && !outcome.notSent;
  return {
    type: clean ? 'success' : 'warning',
    title: clean ? 'Upload complete' : 'Upload incomplete',
    message: `${counts}${failure ? ` ${failure.path}: ${failure.message}` : ''}`,
  };
}
