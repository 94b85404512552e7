import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const documents = ['README.md', ...readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));

/** The folders a repository path starts with; a name in backticks that starts with one is a path to check. */
const TOP = /^(?:apps|packages|docs|e2e|bench|scripts|test-support|deploy|\.ci)\//;

/** What `npm run build` makes (`apps/agent/dist/`, `apps/web/build/client`): not in a fresh clone until it runs. */
const BUILT = /^apps\/[a-z]+\/(?:dist|build)(?:\/|$)/;

/**
 * Paths a document names: in backticks (`apps/agent/src/cage/cage.ts`) or as a relative link target
 * ([security.md](security.md)). Globs, placeholders and run-time paths (DATA_DIR/…) are not files to check.
 */
function namedPaths(doc: string, text: string): string[] {
  const ticked = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => (m[1] ?? '').replace(/[.,;:)]+$/, '')).filter((p) => TOP.test(p));
  const linked = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1] ?? '')
    .filter((p) => !/^[a-z]+:/i.test(p))
    .map((p) => path.relative(root, path.resolve(root, path.dirname(doc), p)));
  return [...ticked, ...linked]
    .filter((p) => !/[*<>{}]|\bID\b|\bNAME\b|\.\.\.|…/.test(p) && !BUILT.test(p))
    .map((p) => p.replace(/:\d+$/, ''));
}

describe('the documents', () => {
  it.each(documents)('%s names only paths that exist in the repository', (doc) => {
    const missing = namedPaths(doc, readFileSync(path.join(root, doc), 'utf8')).filter((p) => !existsSync(path.join(root, p)));
    expect([...new Set(missing)]).toEqual([]);
  });
});
