/**
 * Last build step: writes `.br` and `.gz` copies of the client build's text files, which the API serves
 * to browsers that accept them (@fastify/static `preCompressed`), so pages and scripts travel compressed
 * without compressing on every request.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const out = path.resolve(import.meta.dirname, '../build/client');
const TEXT = /\.(js|css|html|svg|xml|txt|json|webmanifest)$/;
// Below this, compressing saves less than the extra header costs.
const MIN_BYTES = 1024;

let files = 0;
for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !TEXT.test(entry.name)) continue;
  const file = path.join(entry.parentPath, entry.name);
  if (statSync(file).size < MIN_BYTES) continue;
  const body = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  files++;
}
console.log(`compressed ${files} files of the client build (.br, .gz)`);
