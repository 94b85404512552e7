import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder } from '../db/index.ts';
import type { TestProject } from 'vitest/node';
import { pgliteTemplatePath } from './template-path.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

/**
 * Creating a PGlite database costs seconds; cloning a dump of a migrated one costs well under one.
 * The dump is keyed by the migrations' content so a new migration makes a new template.
 */
export default async function setup(project: TestProject): Promise<void> {
  if (project.config.env?.TEST_DATABASE === 'postgres') {
    project.provide('pgliteTemplate', '');
    return;
  }
  const hash = createHash('sha256');
  for (const file of readdirSync(migrationsFolder, { recursive: true }).map(String).sort()) {
    const full = path.join(migrationsFolder, file);
    if (file.endsWith('.sql') || file.endsWith('.json')) hash.update(file).update(readFileSync(full));
  }
  const target = pgliteTemplatePath(hash.digest('hex').slice(0, 16));
  project.provide('pgliteTemplate', target);
  if (existsSync(target)) return;
  mkdirSync(path.dirname(target), { recursive: true });
  const client = await PGlite.create();
  await migrate(drizzle(client), { migrationsFolder });
  const dump = await client.dumpDataDir('gzip');
  await client.close();
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, Buffer.from(await dump.arrayBuffer()));
  renameSync(temp, target);
}
