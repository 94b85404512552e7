// The short-lived process of create-pglite.ts: makes the embedded database folder named on its command line.
import { createHere } from './create-pglite.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: create-pglite-child <folder>');
await createHere(dir);
