/**
 * The code's shape, measured: import cycles (type-only imports included), source files over 400 lines and
 * functions over 100 lines. `scripts/code-shape.test.ts` keeps each figure at or below what
 * docs/design.md ("Code shape") allows; `npx tsx scripts/code-shape.ts` prints them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import ts from 'typescript';

export const root = path.resolve(import.meta.dirname, '..');

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 100;

/** Where product source lives: every app and package, the web app's `app/` included. */
const SOURCE_FOLDERS = [
  'apps/api/src',
  'apps/agent/src',
  'apps/proxy/src',
  'apps/web/app',
  'packages/contracts/src',
  'packages/logging/src',
];

function isProductSource(file: string): boolean {
  return /\.tsx?$/.test(file) && !/\.(test|spec)\.tsx?$/.test(file) && !file.endsWith('.d.ts') && !file.includes('/test/');
}

function walk(folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(relative);
    return isProductSource(relative) ? [relative] : [];
  });
}

export function sourceFiles(): string[] {
  return SOURCE_FOLDERS.flatMap(walk).sort();
}

export interface LongFile {
  file: string;
  lines: number;
}

export function longFiles(files = sourceFiles()): LongFile[] {
  return files
    .map((file) => ({ file, lines: readFileSync(path.join(root, file), 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > MAX_FILE_LINES);
}

export interface LongFunction {
  /** `file:line name`, the line where the function starts. */
  where: string;
  lines: number;
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function, method, arrow and constructor whose body spans more than MAX_FUNCTION_LINES lines. */
export function longFunctions(files = sourceFiles()): LongFunction[] {
  const found: LongFunction[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > MAX_FUNCTION_LINES) found.push({ where: `${file}:${start + 1} ${functionName(node, source)}`, lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Import cycles among the product's sources, each as `a.ts > b.ts > a.ts`; type-only imports count. */
export async function importCycles(): Promise<string[]> {
  const result = await cruise(
    SOURCE_FOLDERS,
    {
      baseDir: root,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: String.raw`\.(test|spec)\.tsx?$` },
    },
    // Sources import each other as `./x.ts` (apps) or `./x.js`; both name the TypeScript file.
    { extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } },
  );
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a cruise result');
  const cycles = new Set<string>();
  for (const module of result.output.modules) {
    for (const dependency of module.dependencies) {
      if (!dependency.circular || !dependency.cycle) continue;
      // One cycle is reported from each of its members; keep it once, starting from its smallest name.
      const members = dependency.cycle.map((step) => step.name);
      const first = members.indexOf([...members].sort()[0] ?? '');
      const rotated = [...members.slice(first), ...members.slice(0, first)];
      cycles.add([...rotated, rotated[0]].join(' > '));
    }
  }
  return [...cycles].sort();
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const files = sourceFiles();
  const report = {
    files: files.length,
    importCycles: await importCycles(),
    longFiles: longFiles(files),
    longFunctions: longFunctions(files).sort((a, b) => b.lines - a.lines),
  };
  console.log(JSON.stringify(report, null, 2));
}
