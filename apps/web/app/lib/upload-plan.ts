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

export interface UploadOutcome {
  uploaded: number;
  foldersCreated: number;
  /** Files and folders that failed, with the first reason worth showing. */
  failures: { path: string; message: string }[];
  /** Files not sent because the upload stopped (the disk limit was reached). */
  notSent: number;
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One toast for the whole upload: counts of what was uploaded, created and refused, and the first reason. */
export function uploadSummary(outcome: UploadOutcome): { type: 'success' | 'warning'; title: string; message: string } {
  const parts = [`${count(outcome.uploaded, 'file')} uploaded`];
  if (outcome.foldersCreated) parts.push(`${count(outcome.foldersCreated, 'folder')} created`);
  if (outcome.failures.length) parts.push(`${outcome.failures.length} failed`);
  if (outcome.notSent) parts.push(`${outcome.notSent} not sent`);
  const first = outcome.failures[0];
  const clean = !outcome.failures.length && !outcome.notSent;
  return {
    type: clean ? 'success' : 'warning',
    title: clean ? 'Upload complete' : 'Upload incomplete',
    message: `${parts.join(', ')}.${first ? ` ${first.path}: ${first.message}` : ''}`,
  };
}
