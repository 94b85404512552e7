import os from 'node:os';
import path from 'node:path';

export function pgliteTemplatePath(key: string): string {
  return path.join(os.tmpdir(), 'spawnpoint-test', `pglite-template-${key}.tar.gz`);
}
